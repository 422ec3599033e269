import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class PayloadKeyError extends Error {}

/**
 * AES-256-GCM keys by id, from `CODELOOP_PAYLOAD_KEYS` (`id:base64,id:base64`): the first encrypts, every one
 * decrypts, so a key is rotated by putting a new one first and keeping the old ones until nothing uses them.
 */
export class Keyring {
  private constructor(
    private readonly keys: Map<string, Buffer>,
    readonly currentId: string,
  ) {}

  static parse(text: string): Keyring {
    const keys = new Map<string, Buffer>();
    const entries = text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    for (const [index, entry] of entries.entries()) {
      const split = entry.indexOf(':');
      const id = entry.slice(0, split).trim();
      const key = Buffer.from(entry.slice(split + 1).trim(), 'base64');
      if (split <= 0 || !/^[A-Za-z0-9._-]{1,64}$/.test(id))
        throw new PayloadKeyError(`entry ${index + 1} is not id:base64-key (an id of letters, digits, dots or dashes)`);
      if (key.length !== KEY_BYTES)
        throw new PayloadKeyError(`key ${id} is ${key.length} bytes; AES-256 needs 32 (make one with: openssl rand -base64 32)`);
      if (keys.has(id)) throw new PayloadKeyError(`key ${id} is given twice`);
      keys.set(id, key);
    }
    if (keys.size === 0) throw new PayloadKeyError('no key given; write id:base64-key, e.g. k1:$(openssl rand -base64 32)');
    return new Keyring(keys, [...keys.keys()][0]);
  }

  /** Random-IV encryption with the current key: `iv | ciphertext | tag`. */
  seal(plain: Uint8Array): { keyId: string; sealed: Buffer } {
    return { keyId: this.currentId, sealed: this.encrypt(this.key(this.currentId), randomBytes(IV_BYTES), plain) };
  }

  /**
   * Deterministic encryption for stored blobs, so equal content is stored once: the IV and the blob's name are keyed
   * hashes of the content, which reveal only whether two blobs are equal, never what they hold.
   */
  sealDeterministic(plain: Uint8Array): { keyId: string; name: string; sealed: Buffer } {
    const key = this.key(this.currentId);
    const iv = createHmac('sha256', key).update('codeloop-iv').update(plain).digest().subarray(0, IV_BYTES);
    const name = createHmac('sha256', key).update('codeloop-name').update(plain).digest('hex');
    return { keyId: this.currentId, name, sealed: this.encrypt(key, iv, plain) };
  }

  open(keyId: string, sealed: Uint8Array): Buffer {
    const key = this.key(keyId);
    const bytes = Buffer.from(sealed);
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new PayloadKeyError(
        `payload encrypted with key ${keyId} does not decrypt: the key is not the one it was sealed with, or the data was changed`,
      );
    }
  }

  private key(id: string): Buffer {
    const key = this.keys.get(id);
    if (!key)
      throw new PayloadKeyError(`payload was encrypted with key ${id}, which CODELOOP_PAYLOAD_KEYS does not hold; add it back to read it`);
    return key;
  }

  private encrypt(key: Buffer, iv: Buffer, plain: Uint8Array): Buffer {
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  }
}
