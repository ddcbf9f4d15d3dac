/**
 * Whether this Node can run @platformatic/kafka 2.12.1 (its `engines`: >= 22.22 or >= 24.6), and
 * the suffix a skipped describe block carries, so a Node 20 run says why it skipped them.
 */
export function platformaticNode(version = process.versions.node): {
  readonly supported: boolean;
  readonly reason: string;
} {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const supported = (major === 22 && minor >= 22) || (major === 24 && minor >= 6) || major > 24;
  return {
    supported,
    reason: supported ? '' : ` (skipped: @platformatic/kafka needs Node >= 22.22 or >= 24.6, this is ${version})`,
  };
}
