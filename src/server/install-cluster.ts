import { installClusterTools } from '../cluster/install.js';
import { TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from '../cluster/tools.js';

// `npm run install-cluster`: builds (or finds) the pinned Temporal server, temporal-sql-tool and Web UI for
// `codeloop cluster up`, and prints where they are.
try {
  const tools = await installClusterTools();
  console.log(`temporal-server ${TEMPORAL_SERVER_VERSION}: ${tools.server}`);
  console.log(`temporal-sql-tool ${TEMPORAL_SERVER_VERSION}: ${tools.sqlTool}`);
  console.log(tools.ui ? `temporal-ui-server ${TEMPORAL_UI_VERSION}: ${tools.ui.server}` : `Web UI: not installed (${tools.uiError})`);
} catch (error) {
  console.error(`codeloop: ${(error as Error).message}`);
  process.exit(1);
}
