import path from 'node:path';
import type { AgentConfig } from 'durable-react-agent';
import config from './config.json';

/** The seed's code-analysis task. */
export const CODE_ANALYSIS_QUERY = 'Find all functions that handle user authentication in this codebase';

/**
 * The run's config: only the three read-only file tools, and a prompt that makes the model search, read, then judge
 * each function. Observations get 6000 tokens (default 2000) because a grep over a codebase and a whole source file
 * are bigger than a calculator result. Kept in config.json so the CLI's `--config` reads the very same object.
 */
export const CODE_ANALYSIS_CONFIG: AgentConfig = config;

/** Absolute path of config.json, for `--config` or for reading it from another program. */
export const CODE_ANALYSIS_CONFIG_FILE = path.join(__dirname, 'config.json');

/** Absolute path of the sample codebase; pass it as the worker's tools root (`--root` on the CLI). */
export const SAMPLE_CODEBASE = path.join(__dirname, 'sample-codebase');
