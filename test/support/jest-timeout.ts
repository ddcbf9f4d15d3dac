// `testTimeout` is a global jest option, not a per-project one: the integration project sets its
// generous default here instead (a real broker, real servers), leaving unit tests at jest's 5 s.
jest.setTimeout(120_000);

// Failover scenarios race real broker elections and session timeouts on a shared 2-core machine.
// One retry, with the first failure's errors printed, separates a lost race from a real defect
// (which fails twice); unit tests never retry.
jest.retryTimes(1, { logErrorsBeforeRetry: true });
