/** Every workflow the worker registers; this file is the bundler's entry point. */
export { reactAgentWorkflow } from '../workflow/react-agent';
