/** An error class, abstract or not, as `instanceof` accepts it. */
export type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/**
 * The error of class `type` that `action` throws, for asserting on its fields. Anything else, a
 * different error or none at all, fails the test with a message that says what happened instead.
 */
export function errorThrownBy<E extends Error>(action: () => unknown, type: ErrorClass<E>): E {
  try {
    action();
  } catch (err) {
    if (err instanceof type) return err;
    throw new Error(`expected a ${type.name}, got ${String(err)}`, { cause: err });
  }
  throw new Error(`expected a ${type.name}, nothing was thrown`);
}

/** The error of class `type` that `promise` rejects with; see {@link errorThrownBy}. */
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: ErrorClass<E>): Promise<E> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof type) return err;
    throw new Error(`expected a ${type.name}, got ${String(err)}`, { cause: err });
  }
  throw new Error(`expected a ${type.name}, the promise resolved`);
}
