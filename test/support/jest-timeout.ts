// `testTimeout` is a global jest option, not a per-project one: the integration project sets its
// generous default here instead (a real broker, real servers), leaving unit tests at jest's 5 s.
jest.setTimeout(120_000);
