// Process entry of the e2e suites: `npm run e2e:suites -- [-p lab|kind] [-s suite...]`.
// SIGINT/SIGTERM skip the checks after the running one, which still cleans up.
import { runAsProcess } from './process-main.js';
import { runSuitesCli } from './suites-cli.js';

runAsProcess('run-suites', runSuitesCli);
