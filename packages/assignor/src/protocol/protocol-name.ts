/**
 * The protocol name members advertise in JoinGroup; all members must share it to use it. The same
 * for every client adapter, so KafkaJS and @platformatic/kafka members form one load-aware group.
 */
export const ASSIGNER_NAME = 'LoadAwareAssigner';
