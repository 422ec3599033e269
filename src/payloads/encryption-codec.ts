import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import type { Keyring } from './keyring.js';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const KEY_ID = 'encryption-key-id';

/**
 * AES-256-GCM over every payload, the whole payload (metadata included) sealed with the current key and its id in
 * the metadata; decoding picks the key by that id. Payloads written without it pass through.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keyring: Keyring) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const { keyId, sealed } = this.keyring.seal(proto.temporal.api.common.v1.Payload.encode(payload).finish());
      return { metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID]: Buffer.from(keyId) }, data: sealed };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (Buffer.from(payload.metadata?.encoding ?? []).toString() !== ENCRYPTED_ENCODING) return payload;
      const keyId = Buffer.from(payload.metadata?.[KEY_ID] ?? []).toString();
      return proto.temporal.api.common.v1.Payload.decode(this.keyring.open(keyId, payload.data ?? new Uint8Array())) as Payload;
    });
  }
}
