import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chunk } from '../../src/payloads/chunking.js';
import { EncryptionCodec } from '../../src/payloads/encryption-codec.js';
import { FileBlobStore } from '../../src/payloads/file-blob-store.js';
import { Keyring } from '../../src/payloads/keyring.js';
import { PostgresBlobStore } from '../../src/payloads/postgres-blob-store.js';
import { StoreCodec } from '../../src/payloads/store-codec.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

const key = () => randomBytes(32).toString('base64');
const storeDir = () => mkdtempSync(path.join(os.tmpdir(), 'codeloop-blobs-'));
const filesIn = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
const payloadOf = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const valueOf = (payload: Payload) => defaultPayloadConverter.fromPayload(payload);
/** A conversation like a model call's input: many turns of ~5 KB tool output. */
const conversation = (turns: number) =>
  Array.from({ length: turns }, (_, turn) => ({
    turn,
    output: Array.from({ length: 80 }, (_, line) => createHash('sha256').update(`${turn}:${line}`).digest('hex')).join('\n'),
  }));

test('content-defined chunks: a conversation that grew by a turn keeps its earlier chunks', () => {
  const before = Buffer.from(JSON.stringify(conversation(20)));
  const after = Buffer.from(JSON.stringify(conversation(21)));
  const known = new Set(chunk(before).map((part) => Buffer.from(part).toString('base64')));
  const parts = chunk(after);
  const fresh = parts.filter((part) => !known.has(Buffer.from(part).toString('base64')));
  expect(parts.length).toBeGreaterThan(10);
  expect(fresh.length).toBeLessThanOrEqual(3);
  expect(Buffer.concat(parts).equals(after)).toBe(true);
  for (const part of parts.slice(0, -1)) expect(part.length).toBeGreaterThanOrEqual(1024);
});

describe('the store codec', () => {
  test('a large payload becomes a small reference; the next, longer one stores only its new chunks; both decode', async () => {
    const dir = storeDir();
    const codec = new StoreCodec(new FileBlobStore(dir));
    const [first] = await codec.encode([payloadOf(conversation(20))]);
    const storedAfterFirst = filesIn(dir).length;
    const [second] = await new StoreCodec(new FileBlobStore(dir)).encode([payloadOf(conversation(21))]);
    expect(first.data!.length).toBeLessThan(200);
    expect(filesIn(dir).length - storedAfterFirst).toBeLessThanOrEqual(4);
    const fresh = new StoreCodec(new FileBlobStore(dir));
    expect(valueOf((await fresh.decode([second]))[0])).toEqual(conversation(21));
    expect(valueOf((await fresh.decode([first]))[0])).toEqual(conversation(20));
    const small = payloadOf({ tiny: true });
    expect((await codec.encode([small]))[0]).toBe(small);
  });

  test('a missing blob is an error naming the blob and the store', async () => {
    const dir = storeDir();
    const [reference] = await new StoreCodec(new FileBlobStore(dir)).encode([payloadOf(conversation(3))]);
    const other = storeDir();
    await expect(new StoreCodec(new FileBlobStore(other)).decode([reference])).rejects.toThrow(
      new RegExp(`payload blob [0-9a-f]{64} is missing from the payload store file://${other}`),
    );
  });

  test('with keys, blobs are sealed: no plaintext on disk, and still stored once', async () => {
    const dir = storeDir();
    const marker = `marker-${randomBytes(6).toString('hex')}`;
    const keyring = Keyring.parse(`k1:${key()}`);
    const value = { text: `${marker} `.repeat(1000) };
    const codec = new StoreCodec(new FileBlobStore(dir), keyring);
    const [reference] = await codec.encode([payloadOf(value)]);
    const count = filesIn(dir).length;
    await new StoreCodec(new FileBlobStore(dir), keyring).encode([payloadOf(value)]);
    expect(filesIn(dir).length).toBe(count);
    for (const file of filesIn(dir)) expect(readFileSync(file).includes(marker)).toBe(false);
    expect(valueOf((await new StoreCodec(new FileBlobStore(dir), keyring).decode([reference]))[0])).toEqual(value);
    await expect(new StoreCodec(new FileBlobStore(dir)).decode([reference])).rejects.toThrow('set CODELOOP_PAYLOAD_KEYS');
  });
});

describe('the encryption codec', () => {
  test('seals every payload with the current key; rotation keeps old payloads readable; an unknown key is named', async () => {
    const [k1, k2] = [key(), key()];
    const [sealed] = await new EncryptionCodec(Keyring.parse(`k1:${k1}`)).encode([payloadOf({ secret: 'hunter2' })]);
    expect(Buffer.from(sealed.data!).includes('hunter2')).toBe(false);
    expect(Buffer.from(sealed.metadata!['encryption-key-id']).toString()).toBe('k1');
    const rotated = new EncryptionCodec(Keyring.parse(`k2:${k2},k1:${k1}`));
    expect(valueOf((await rotated.decode([sealed]))[0])).toEqual({ secret: 'hunter2' });
    expect(Buffer.from((await rotated.encode([payloadOf(1)]))[0].metadata!['encryption-key-id']).toString()).toBe('k2');
    await expect(new EncryptionCodec(Keyring.parse(`k2:${k2}`)).decode([sealed])).rejects.toThrow(
      'payload was encrypted with key k1, which CODELOOP_PAYLOAD_KEYS does not hold; add it back to read it',
    );
    const plain = payloadOf('as it was');
    expect((await rotated.decode([plain]))[0]).toBe(plain);
  });

  test('bad keys are refused without echoing them', () => {
    expect(() => Keyring.parse('k1:c2hvcnQ=')).toThrow('key k1 is 5 bytes; AES-256 needs 32');
    expect(() => Keyring.parse('nocolon')).toThrow('entry 1 is not id:base64-key');
    expect(() => Keyring.parse(`k1:${key()},k1:${key()}`)).toThrow('key k1 is given twice');
  });
});

describe('the PostgreSQL store', () => {
  let postgres: TestPostgres | undefined;
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);
  afterAll(() => postgres?.stop());

  test('stores once, reads back, and counts its bytes', async (context) => {
    if (!postgres) return context.skip('PostgreSQL is not installed here (CI installs it)');
    const store = new PostgresBlobStore(postgres.url);
    try {
      const keyring = Keyring.parse(`k1:${key()}`);
      const [reference] = await new StoreCodec(store, keyring).encode([payloadOf(conversation(10))]);
      const size = await store.size();
      await new StoreCodec(store, keyring).encode([payloadOf(conversation(10))]);
      expect(size).toBeGreaterThan(50_000);
      expect(await store.size()).toBe(size);
      expect(store.location).toMatch(/^postgres:\/\/codeloop@127\.0\.0\.1:\d+\/postgres$/);
      expect(valueOf((await new StoreCodec(store, keyring).decode([reference]))[0])).toEqual(conversation(10));
    } finally {
      await store.close();
    }
  });
});
