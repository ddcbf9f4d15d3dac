import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';

/** One connection a KafkaJS client opened through the spy. */
export interface SpiedSocket {
  readonly port: number;
  /** The `ssl` option KafkaJS handed the factory: the user's, if it reached this client. */
  readonly ssl: unknown;
  /** API keys of the requests written on it, in order (18 ApiVersions, 17 SaslHandshake, 36 SaslAuthenticate, ...). */
  readonly apiKeys: number[];
}

/** A KafkaJS socket factory that behaves like KafkaJS's default one and records every connection. */
export interface SocketSpy {
  readonly factory: ISocketFactory;
  readonly sockets: SpiedSocket[];
}

export const API_VERSIONS = 18;
export const SASL_HANDSHAKE = 17;
export const SASL_AUTHENTICATE = 36;

/**
 * Builds the spy. Like KafkaJS's default factory it opens a TLS socket when `ssl` is set (with the
 * user's options, so a wrong trust store fails the handshake) and a plain one otherwise. Each
 * KafkaJS request is one `write` starting with its size and API key, so the key is read there.
 */
export function socketSpy(): SocketSpy {
  const sockets: SpiedSocket[] = [];
  const factory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
    const record: SpiedSocket = { port, ssl, apiKeys: [] };
    sockets.push(record);
    // Typed as always present, but KafkaJS passes whatever the user configured, often nothing.
    const tlsOptions = ssl as ConnectionOptions | undefined;
    const socket: Socket = tlsOptions
      ? tlsConnect({ host, port, ...(isIP(host) === 0 ? { servername: host } : {}), ...tlsOptions }, onConnect)
      : netConnect({ host, port }, onConnect);
    socket.setKeepAlive(true, 60_000);
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = (chunk: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(chunk) && chunk.length >= 6) record.apiKeys.push(chunk.readInt16BE(4));
      return write(chunk, ...rest);
    };
    return socket;
  };
  return { factory, sockets };
}

/** True when the socket authenticated (SaslHandshake, then SaslAuthenticate) before any other request. */
export function authenticatedFirst(socket: SpiedSocket): boolean {
  const firstOther = socket.apiKeys.findIndex(
    (k) => k !== API_VERSIONS && k !== SASL_HANDSHAKE && k !== SASL_AUTHENTICATE,
  );
  const before = firstOther === -1 ? socket.apiKeys : socket.apiKeys.slice(0, firstOther);
  return before.includes(SASL_HANDSHAKE) && before.includes(SASL_AUTHENTICATE);
}
