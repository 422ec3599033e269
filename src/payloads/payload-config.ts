import { readFileSync } from 'node:fs';
import { ConfigError } from '../config-error.js';
import { Keyring } from './keyring.js';

/**
 * Large payloads in a store (history holds references), and payloads encrypted. The embedded setup (`npm start`'s
 * server, and the worker and CLI beside it: no `TEMPORAL_ADDRESS`, or loopback at `CODELOOP_TEMPORAL_PORT`) keeps
 * payloads in `file` under the data directory by default; against any other server both are off unless set.
 */
export interface PayloadConfig {
  /** `CODELOOP_PAYLOAD_STORE`, resolved: `file:///abs/dir` or a PostgreSQL URL; `off` leaves it unset. */
  store?: string;
  /** Whether `store` is the embedded setup's default rather than set. */
  storeByDefault?: boolean;
  /** Whether keys are set (`CODELOOP_PAYLOAD_KEYS` or `_FILE`); the keys are read by `readPayloadKeys`, never kept here. */
  encrypted: boolean;
}

/** `CODELOOP_PAYLOAD_KEYS`, or the file `CODELOOP_PAYLOAD_KEYS_FILE` names; `undefined` when payloads are not encrypted. */
export function readPayloadKeys(env: NodeJS.ProcessEnv = process.env): Keyring | undefined {
  if (env.CODELOOP_PAYLOAD_KEYS && env.CODELOOP_PAYLOAD_KEYS_FILE)
    throw new ConfigError('CODELOOP_PAYLOAD_KEYS and CODELOOP_PAYLOAD_KEYS_FILE are both set; set one');
  if (env.CODELOOP_PAYLOAD_KEYS_FILE) return Keyring.parse(readKeyFile(env.CODELOOP_PAYLOAD_KEYS_FILE));
  const text = env.CODELOOP_PAYLOAD_KEYS;
  return text ? Keyring.parse(text) : undefined;
}

/** A key file's keys, one a line (or separated by commas or spaces), as `CODELOOP_PAYLOAD_KEYS` holds them. */
export const readKeyFile = (file: string) =>
  readFileSync(file, 'utf8')
    .split(/[\s,]+/)
    .filter(Boolean)
    .join(',');
