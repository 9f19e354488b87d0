// Entry of the background worker thread. The runtime runs from its TypeScript sources with tsx,
// and a worker does not inherit tsx's loader (Node 20 ignores loaders in a Worker's execArgv):
// register it here, then load the worker itself.
import { register } from 'tsx/esm/api';

register();
await import('./background-worker.ts');
