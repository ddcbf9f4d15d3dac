import { execFile } from 'node:child_process';
import { appendFile, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePorts } from './free-ports';
import { startKafka, type KafkaCluster } from './kafka-broker';

/** A single-node broker that also listens with SASL_SSL (SASL/PLAIN over TLS). */
export interface SecureKafka {
  readonly cluster: KafkaCluster;
  /** The SASL_SSL listener: only clients with the right TLS trust and credentials get in. */
  readonly secureBrokers: string[];
  /** The broker's self-signed certificate (PEM), to trust as `ssl.ca`. */
  readonly ca: string;
  /** The name the certificate is issued to, for `ssl.servername`. */
  readonly servername: string;
  stop(): Promise<void>;
}

/**
 * Starts a dedicated single-node broker (the test bed's `startKafka`), then adds a SASL_SSL
 * listener with a fresh self-signed certificate and the given PLAIN users, and restarts the node
 * with it: Java reads the last value of a repeated key in server.properties, so the listener
 * settings are appended rather than rendered by the test bed. The PLAINTEXT listener stays for
 * inter-broker traffic and the harness's own readiness checks. With `authorizer`, the broker
 * enforces ACLs (KRaft's StandardAuthorizer) on the SASL users, while plaintext clients stay
 * super users: a test grants its SASL users exactly what it wants them to have.
 */
export async function startSecureKafka(
  users: Record<string, string>,
  options: { readonly authorizer?: boolean } = {},
): Promise<SecureKafka> {
  const cluster = await startKafka({ nodes: 1 });
  try {
    const node = cluster.nodes[0]!;
    const nodeDir = dirname(node.dataDir);
    const [securePort] = await findFreePorts(1);
    const keystore = join(nodeDir, 'broker.p12');
    const storePassword = 'keystore-pass-0';
    const servername = 'kafka.reliability.test';
    const keytool =
      process.env['JAVA_HOME'] === undefined ? 'keytool' : join(process.env['JAVA_HOME'], 'bin', 'keytool');
    const run = promisify(execFile);
    await run(keytool, [
      '-genkeypair', '-alias', 'broker', '-keyalg', 'RSA', '-keysize', '2048', '-validity', '2',
      '-dname', `CN=${servername}`, '-ext', `SAN=DNS:${servername},IP:127.0.0.1`,
      '-keystore', keystore, '-storetype', 'PKCS12', '-storepass', storePassword, '-keypass', storePassword,
    ]); // prettier-ignore
    const { stdout: ca } = await run(keytool, [
      '-exportcert', '-rfc', '-alias', 'broker', '-keystore', keystore, '-storetype', 'PKCS12', '-storepass', storePassword,
    ]); // prettier-ignore
    const plaintext = `PLAINTEXT://127.0.0.1:${String(node.port)}`;
    const secure = `SASL_SSL://127.0.0.1:${String(securePort)}`;
    const jaasUsers = Object.entries(users)
      .map(([user, password]) => `user_${user}="${password}"`)
      .join(' ');
    const settings = [
      `listeners=${plaintext},${secure},CONTROLLER://127.0.0.1:${String(node.controllerPort)}`,
      `advertised.listeners=${plaintext},${secure}`,
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT',
      'sasl.enabled.mechanisms=PLAIN',
      `listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required ${jaasUsers};`,
      `listener.name.sasl_ssl.ssl.keystore.location=${keystore}`,
      'listener.name.sasl_ssl.ssl.keystore.type=PKCS12',
      `listener.name.sasl_ssl.ssl.keystore.password=${storePassword}`,
      `listener.name.sasl_ssl.ssl.key.password=${storePassword}`,
      // ACLs apply to the SASL users only: the plaintext listener's ANONYMOUS (tests' admin,
      // controller, inter-broker) is a super user.
      ...(options.authorizer === true
        ? [
            'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
            'super.users=User:ANONYMOUS',
          ]
        : []),
    ];
    const properties = join(nodeDir, 'server.properties');
    if (!(await readFile(properties, 'utf8')).includes('listeners=')) throw new Error(`unexpected ${properties}`);
    await cluster.stopNode(node.nodeId);
    await appendFile(properties, `\n# reliability tests: a SASL_SSL listener\n${settings.join('\n')}\n`);
    await cluster.startNode(node.nodeId);
    return {
      cluster,
      secureBrokers: [`127.0.0.1:${String(securePort)}`],
      ca,
      servername,
      stop: () => cluster.stop(),
    };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}
