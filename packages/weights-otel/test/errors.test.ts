import { ERROR_CODES, isLoadAwareError } from '@load-aware/assignor';
import { OtelCollectFailedError, OtelErrorCodes, OtelReaderNotRegisteredError } from '@load-aware/weights-otel';

describe('the OTel error catalogue', () => {
  const cause = new Error('MetricReader is shutdown');
  const classes = [new OtelReaderNotRegisteredError('r'), new OtelCollectFailedError('c', { cause })];

  it('takes its codes from the assignor’s one catalogue', () => {
    expect(OtelErrorCodes).toBe(ERROR_CODES.otel);
  });

  it('has one class per code, each a branded load-aware error named after its class', () => {
    expect(classes.map((e) => e.code).sort()).toEqual(Object.values(OtelErrorCodes).sort());
    for (const err of classes) {
      expect(isLoadAwareError(err, err.code)).toBe(true);
      expect(err.name).toBe(err.constructor.name);
    }
    expect(classes[1]?.cause).toBe(cause);
  });
});
