// A setup file of the projects with a Temporal server (vitest.config.mts): before each test file, the SDK runtime of
// its worker process is installed with the run's log file, so no test file's workers write SDK lines to the console.
import { inject } from 'vitest';
import { installTestRuntime } from './sdk-log';

installTestRuntime(inject('testLogFile'));
