/**
 * Every error code of every load-aware package, in one place. The other packages depend on the
 * assignor (never the reverse), so the union of all codes can only be built here; each package
 * takes its own group from this catalogue instead of keeping a list of its own, so a code string
 * exists exactly once. Codes are stable and never reused; callers match on `code`, never on the
 * message.
 */
export const ERROR_CODES = {
  /** `@load-aware/assignor`; `config` is shared: every package reports bad options with it. */
  assignor: {
    /** Options failed validation. */
    config: 'LOAD_AWARE_CONFIG',
    /** `balance()` was given input no assignment can satisfy. */
    invalidBalanceInput: 'LOAD_AWARE_INVALID_BALANCE_INPUT',
    /** The weight source did not answer within `weightsTimeoutMs`. */
    weightsTimeout: 'LOAD_AWARE_WEIGHTS_TIMEOUT',
    /** The weight source rejected or answered something that is not a list of weights. */
    weightsFailed: 'LOAD_AWARE_WEIGHTS_FAILED',
    /** Metadata of topics only other members subscribe to was not loaded within the budget. */
    metadataTimeout: 'LOAD_AWARE_METADATA_TIMEOUT',
    /** Another process joined with this consumer's group instance id; this consumer stopped. */
    staticMemberFenced: 'LOAD_AWARE_STATIC_MEMBER_FENCED',
    /** Static membership is on, but the broker or the installed KafkaJS cannot send a group instance id. */
    staticMembershipUnsupported: 'LOAD_AWARE_STATIC_MEMBERSHIP_UNSUPPORTED',
    /** The installed KafkaJS lacks an internal a feature the options turn on needs (or has it in another shape). */
    kafkaJsInternalMissing: 'LOAD_AWARE_KAFKAJS_INTERNAL_MISSING',
  },
  /** `@load-aware/weights-offset-rate`. */
  offsetRate: {
    /** A whole sample did not finish within `sampleTimeoutMs`. */
    sampleTimeout: 'LOAD_AWARE_OFFSET_RATE_SAMPLE_TIMEOUT',
    /** A whole sample failed before any partition could be read (connection, metadata). */
    sampleFailed: 'LOAD_AWARE_OFFSET_RATE_SAMPLE_FAILED',
    /** The partition is not in the cluster's metadata: its topic was deleted or it never existed. */
    unknownPartition: 'LOAD_AWARE_OFFSET_RATE_UNKNOWN_PARTITION',
    /** The partition has no leader in the metadata right now (election in progress). */
    noLeader: 'LOAD_AWARE_OFFSET_RATE_NO_LEADER',
    /** The ListOffsets request carrying the partition failed or timed out. */
    listOffsetsFailed: 'LOAD_AWARE_OFFSET_RATE_LIST_OFFSETS_FAILED',
    /** The answer had no offset for a partition that was asked for. */
    noAnswer: 'LOAD_AWARE_OFFSET_RATE_NO_ANSWER',
    /** The answer had an offset that is not a non-negative integer. */
    invalidOffset: 'LOAD_AWARE_OFFSET_RATE_INVALID_OFFSET',
  },
  /** `@load-aware/weights-prometheus`. */
  prometheus: {
    /** A requested topic name has characters Kafka does not allow; no query was sent. */
    invalidTopic: 'LOAD_AWARE_PROMETHEUS_INVALID_TOPIC',
    /** No complete answer within `timeoutMs` (connect, request and response body together). */
    timeout: 'LOAD_AWARE_PROMETHEUS_TIMEOUT',
    /** The request never got an HTTP answer: connection refused, reset, DNS failure, body too large. */
    requestFailed: 'LOAD_AWARE_PROMETHEUS_REQUEST_FAILED',
    /** The server answered with a status outside 2xx (redirects included: they are not followed). */
    httpStatus: 'LOAD_AWARE_PROMETHEUS_HTTP_STATUS',
    /** The server answered 2xx with `status: "error"`, e.g. a PromQL syntax error. */
    queryFailed: 'LOAD_AWARE_PROMETHEUS_QUERY_FAILED',
    /** The body is not a Prometheus instant-vector answer (not JSON, wrong shape, wrong result type). */
    malformedResponse: 'LOAD_AWARE_PROMETHEUS_MALFORMED_RESPONSE',
  },
  /** `@load-aware/weights-otel`. */
  otel: {
    /** The source's MetricReader is in no MeterProvider's `readers`, so it has nothing to collect. */
    readerNotRegistered: 'LOAD_AWARE_OTEL_READER_NOT_REGISTERED',
    /** Collecting from the MeterProvider failed or did not finish in time (or the provider shut down). */
    collectFailed: 'LOAD_AWARE_OTEL_COLLECT_FAILED',
  },
  /** `@load-aware/trigger`. */
  trigger: {
    /** One check (describe the group, weigh, evaluate) did not finish within `checkTimeoutMs`. */
    checkTimeout: 'LOAD_AWARE_TRIGGER_CHECK_TIMEOUT',
    /** DescribeGroups answered without the consumer's group (or with an error code for it). */
    groupNotDescribed: 'LOAD_AWARE_TRIGGER_GROUP_NOT_DESCRIBED',
    /** A trigger's `evaluate()` returned something that is not a decision with a known outcome. */
    invalidDecision: 'LOAD_AWARE_TRIGGER_INVALID_DECISION',
  },
  /** `@load-aware/platformatic`. */
  platformatic: {
    /**
     * An attached consumer's `consume()` asked for a mode that starts a partition it is handed from
     * a stale position instead of the group's committed offset (refused), or for a fallback that can
     * skip a first owner's uncommitted messages (warned).
     */
    unsafeConsumeMode: 'LOAD_AWARE_PLATFORMATIC_UNSAFE_CONSUME_MODE',
  },
} as const;

/** Every code any load-aware package produces: the type of `LoadAwareError.code`. */
export type LoadAwareErrorCode = {
  [P in keyof typeof ERROR_CODES]: (typeof ERROR_CODES)[P][keyof (typeof ERROR_CODES)[P]];
}[keyof typeof ERROR_CODES];
