import { createHash } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { MissingBlobError, type BlobStore } from './blob-store.js';
import { chunk } from './chunking.js';
import type { Keyring } from './keyring.js';

/** Marks a payload whose content is in the store; anything else passes through, so older histories stay readable. */
export const STORED_ENCODING = 'binary/codeloop-stored';
/** Smaller payloads stay in history: a reference would save little. */
const INLINE_BELOW = 2 * 1024;
/** Blobs kept in memory, read or written recently: consecutive model calls share almost all of theirs. */
const CACHE_BLOBS = 4096;

interface Reference {
  v: 1;
  /** The blob that lists the payload's chunks, in order. */
  root: string;
  /** The original payload's size, and whether its blobs are sealed with the keyring. */
  bytes: number;
  sealed: boolean;
}

/**
 * Large payloads go to a content-addressed store and history holds a reference of a hundred bytes or so. The payload
 * is cut into content-defined chunks, so the next model call, which repeats the conversation so far, stores only its
 * new turns. With a keyring, every blob is encrypted (deterministically, so equal chunks still dedupe).
 */
export class StoreCodec implements PayloadCodec {
  private readonly cache = new Map<string, Uint8Array>();

  constructor(
    private readonly store: BlobStore,
    private readonly keyring?: Keyring,
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => this.encodeOne(payload)));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => this.decodeOne(payload)));
  }

  private async encodeOne(payload: Payload): Promise<Payload> {
    if ((payload.data?.length ?? 0) < INLINE_BELOW) return payload;
    const bytes = proto.temporal.api.common.v1.Payload.encode(payload).finish();
    const parts = chunk(bytes).map((part) => ({ plain: part, ...this.seal(part) }));
    const list = Buffer.from(JSON.stringify(parts.map((part) => part.name)));
    const blobs = [...parts, { plain: list, ...this.seal(list) }];
    // All at once, the list with its chunks: each write waits for its own flush, not for the others'.
    await Promise.all(blobs.map((blob) => this.putBlob(blob)));
    const root = blobs[blobs.length - 1].name;
    const reference: Reference = { v: 1, root, bytes: bytes.length, sealed: this.keyring !== undefined };
    return { metadata: { encoding: Buffer.from(STORED_ENCODING) }, data: Buffer.from(JSON.stringify(reference)) };
  }

  private async decodeOne(payload: Payload): Promise<Payload> {
    if (Buffer.from(payload.metadata?.encoding ?? []).toString() !== STORED_ENCODING) return payload;
    const reference = JSON.parse(Buffer.from(payload.data ?? []).toString()) as Reference;
    const names = JSON.parse((await this.getBlob(reference.root, reference.sealed)).toString()) as string[];
    const parts = await Promise.all(names.map((name) => this.getBlob(name, reference.sealed)));
    return proto.temporal.api.common.v1.Payload.decode(Buffer.concat(parts)) as Payload;
  }

  private async putBlob({ plain, name, bytes }: { plain: Uint8Array; name: string; bytes: Uint8Array }): Promise<void> {
    if (!this.cache.has(name)) await this.store.put(name, bytes);
    this.remember(name, plain);
  }

  private seal(plain: Uint8Array): { name: string; bytes: Uint8Array } {
    if (!this.keyring) return { name: createHash('sha256').update(plain).digest('hex'), bytes: plain };
    const { keyId, name, sealed } = this.keyring.sealDeterministic(plain);
    // `<key id length><key id><sealed>`: a blob says which key opens it, so rotation needs no rewrite.
    return { name, bytes: Buffer.concat([Buffer.from([keyId.length]), Buffer.from(keyId), sealed]) };
  }

  private async getBlob(name: string, sealed: boolean): Promise<Buffer> {
    const cached = this.cache.get(name);
    if (cached) return Buffer.from(cached);
    const stored = await this.store.get(name);
    if (!stored)
      throw new MissingBlobError(
        `payload blob ${name} is missing from the payload store ${this.store.location}: the store this history was written with is not the one configured (CODELOOP_PAYLOAD_STORE), or the blob was deleted`,
      );
    const bytes = Buffer.from(stored);
    const plain = sealed ? this.open(bytes) : bytes;
    this.remember(name, plain);
    return plain;
  }

  private open(bytes: Buffer): Buffer {
    if (!this.keyring) throw new MissingBlobError('this payload is encrypted; set CODELOOP_PAYLOAD_KEYS to the keys it was written with');
    const idLength = bytes[0];
    return this.keyring.open(bytes.subarray(1, 1 + idLength).toString(), bytes.subarray(1 + idLength));
  }

  private remember(name: string, plain: Uint8Array): void {
    this.cache.delete(name);
    this.cache.set(name, plain);
    if (this.cache.size > CACHE_BLOBS) this.cache.delete(this.cache.keys().next().value!);
  }
}
