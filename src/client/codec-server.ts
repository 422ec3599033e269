import { payloadCodecsFor } from '../payloads/codecs.js';
import { startCodecServer } from '../payloads/codec-server.js';
import { CliError } from './output.js';
import { cliConfig } from './session.js';
import { webUiBase } from './web-ui.js';

export interface CodecServerCommandOptions {
  port: string;
  origin: string[];
  token?: string;
}

/**
 * `codeloop codec-server`: decodes payloads for the Web UI and `temporal workflow show --codec-endpoint` with this
 * machine's `CODELOOP_PAYLOAD_STORE` and `CODELOOP_PAYLOAD_KEYS`, until Ctrl-C.
 */
export async function runCodecServer(options: CodecServerCommandOptions): Promise<void> {
  const config = cliConfig();
  const payloads = payloadCodecsFor(config.payloads);
  if (payloads.codecs.length === 0)
    throw new CliError(
      'no payload codec is configured: set CODELOOP_PAYLOAD_STORE and/or CODELOOP_PAYLOAD_KEYS as the workers have them',
      2,
    );
  const ui = webUiBase(config);
  if (!options.origin.length && !ui)
    throw new CliError('the Web UI of this server is unknown: name its origin with --origin, or set CODELOOP_UI_URL', 2);
  const origins = options.origin.length ? options.origin : [ui!];
  const server = await startCodecServer({ codecs: payloads.codecs, port: Number(options.port), origins, token: options.token });
  console.error(`codeloop codec server at ${server.url} (for ${origins.join(', ')}${options.token ? ', bearer token required' : ''})`);
  console.error(`  Web UI: set the codec endpoint to ${server.url}; CLI: temporal workflow show --codec-endpoint ${server.url} ...`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  await payloads.close();
}
