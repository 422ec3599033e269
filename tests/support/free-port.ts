export { freePort } from '../../src/cluster/free-port.js';
