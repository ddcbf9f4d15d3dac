import { KafkaJSProtocolError, type Cluster } from 'kafkajs';

/**
 * Making one KafkaJS consumer rejoin its group on demand (docs/architecture.md, "Forcing a rebalance"). KafkaJS has no
 * `enforceRebalance()`, but its runner answers any error typed `REBALANCE_IN_PROGRESS` that
 * escapes the fetch loop by re-sending JoinGroup, and the fetch loop calls
 * `cluster.refreshMetadataIfNecessary()` first thing on every iteration, even for a member without
 * partitions. So the assigner factory, which receives each consumer's own `cluster`, wraps that
 * call: after a request it rejects once with such an error, and the consumer rejoins with
 * whatever `protocol()` advertises by then (a bumped epoch, so the broker rebalances the group).
 */

/** The per-consumer half: the assigner tells it whenever KafkaJS builds JoinGroup metadata. */
export interface ConsumerRejoinSwitch {
  /** Called from `protocol()`: the consumer is sending JoinGroup with current metadata. */
  joining(): void;
}

/** Every consumer created with one assigner, reachable by group. */
export interface RejoinSwitchboard {
  /** Hooks one consumer's cluster; a cluster without the expected methods gets a no-op switch. */
  install(cluster: Cluster, groupId: string): ConsumerRejoinSwitch;
  /** Asks every joined consumer of `groupId` to rejoin once; returns how many were asked. */
  request(groupId: string): number;
}

interface SwitchState {
  readonly groupId: string;
  /**
   * True between this consumer's JoinGroup and its next connect/disconnect: only then is a
   * `refreshMetadataIfNecessary` call the fetch loop's. The same call also opens
   * `consumer.run()` (right after `cluster.connect()`), where a rebalance error would crash
   * the consumer instead of making it rejoin.
   */
  joined: boolean;
  pending: boolean;
}

const noopSwitch: ConsumerRejoinSwitch = Object.freeze({ joining: () => undefined });

/** Creates the switchboard an assigner keeps for the consumers it was given to. */
export function createRejoinSwitchboard(): RejoinSwitchboard {
  // Weak: a consumer that is dropped without disconnecting must not be kept alive by its
  // assigner. The wrapped cluster methods hold the state, so it lives exactly as long as they do.
  const switches = new Set<WeakRef<SwitchState>>();

  const live = (): SwitchState[] => {
    const states: SwitchState[] = [];
    for (const ref of switches) {
      const state = ref.deref();
      if (state === undefined) switches.delete(ref);
      else states.push(state);
    }
    return states;
  };

  return {
    install(cluster, groupId) {
      const target = cluster as Partial<Cluster>;
      const { refreshMetadataIfNecessary: refresh, connect, disconnect } = target;
      if (typeof refresh !== 'function' || typeof connect !== 'function' || typeof disconnect !== 'function') {
        return noopSwitch;
      }
      const state: SwitchState = { groupId, joined: false, pending: false };
      target.refreshMetadataIfNecessary = () => {
        if (state.pending && state.joined) {
          state.pending = false;
          return Promise.reject(rebalanceError());
        }
        return refresh.call(cluster);
      };
      target.connect = () => {
        state.joined = false;
        return connect.call(cluster);
      };
      target.disconnect = () => {
        // A request must not outlive this consumer's membership into a later `run()`.
        state.joined = false;
        state.pending = false;
        return disconnect.call(cluster);
      };
      live(); // prunes collected entries, so the set stays as small as the live consumers
      switches.add(new WeakRef(state));
      return {
        joining() {
          state.joined = true;
          // This JoinGroup already carries the current metadata: the request is fulfilled.
          state.pending = false;
        },
      };
    },
    request(groupId) {
      let asked = 0;
      for (const state of live()) {
        if (state.groupId !== groupId || !state.joined) continue;
        state.pending = true;
        asked++;
      }
      return asked;
    },
  };
}

/**
 * The error KafkaJS's runner treats as "the group is rebalancing": it logs a WARN, emits
 * `consumer.rebalancing` and rejoins. Marked retriable so that, should it ever escape elsewhere,
 * KafkaJS restarts the consumer rather than leaving it crashed.
 */
function rebalanceError(): KafkaJSProtocolError {
  const cause = Object.assign(new Error('load-aware trigger requested a rejoin to rebalance the group'), {
    type: 'REBALANCE_IN_PROGRESS',
    code: 27,
    retriable: true,
  });
  return new KafkaJSProtocolError(cause);
}
