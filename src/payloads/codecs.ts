import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { fileURLToPath } from 'node:url';
import { readPayloadKeys, type PayloadConfig } from './payload-config.js';
import type { BlobStore } from './blob-store.js';
import { EncryptionCodec } from './encryption-codec.js';
import { FileBlobStore } from './file-blob-store.js';
import { PostgresBlobStore } from './postgres-blob-store.js';
import { settingsGuard } from './settings-guard.js';
import { StoreCodec } from './store-codec.js';

export interface PayloadCodecs {
  /** For `Worker.create` and `new Client`: every reader and writer of payloads must use the same. */
  dataConverter: DataConverter;
  codecs: PayloadCodec[];
  store?: BlobStore;
  close(): Promise<void>;
}

/**
 * The codecs the settings ask for, in the order they encode: the store first (large payloads become references),
 * then encryption (every payload, references included). Neither set: none, and payloads go as they are.
 */
export function payloadCodecsFor(settings: PayloadConfig, env: NodeJS.ProcessEnv = process.env): PayloadCodecs {
  const keyring = settings.encrypted ? readPayloadKeys(env) : undefined;
  const store = settings.store ? openStore(settings.store) : undefined;
  const codecs: PayloadCodec[] = [];
  if (store) codecs.push(new StoreCodec(store, keyring));
  if (keyring) codecs.push(new EncryptionCodec(keyring));
  // The guard goes first, so it decodes last: after the configured codecs, nothing of theirs may be left.
  return { dataConverter: { payloadCodecs: [settingsGuard, ...codecs] }, codecs, store, close: async () => store?.close() };
}

function openStore(location: string): BlobStore {
  return location.startsWith('file://') ? new FileBlobStore(fileURLToPath(location)) : new PostgresBlobStore(location);
}
