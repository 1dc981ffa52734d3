// Process entry of the case runner: `npm run e2e:cases -- [options] <file or folder>...`.
// SIGINT/SIGTERM stop after the running case, which still cleans up.
import { runCli } from './cli.js';
import { runAsProcess } from './process-main.js';

runAsProcess('run-cases', runCli);
