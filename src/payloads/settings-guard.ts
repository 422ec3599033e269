import type { Payload, PayloadCodec } from '@temporalio/common';
import { ENCRYPTED_ENCODING } from './encryption-codec.js';
import { STORED_ENCODING } from './store-codec.js';

/**
 * Decoded last: a payload still encrypted or stored after every configured codec ran was written with settings this
 * process lacks. Naming the missing variable beats the converter's "unknown encoding".
 */
export const settingsGuard: PayloadCodec = {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  },
  async decode(payloads: Payload[]): Promise<Payload[]> {
    for (const payload of payloads) {
      const encoding = Buffer.from(payload.metadata?.encoding ?? []).toString();
      if (encoding === ENCRYPTED_ENCODING) {
        const keyId = Buffer.from(payload.metadata?.['encryption-key-id'] ?? []).toString();
        throw new Error(`this payload is encrypted (key ${keyId}): set CODELOOP_PAYLOAD_KEYS to the keys the workers use`);
      }
      if (encoding === STORED_ENCODING)
        throw new Error('this payload is in a payload store: set CODELOOP_PAYLOAD_STORE to the store the workers use');
    }
    return payloads;
  },
};
