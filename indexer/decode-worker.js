// Entry of a decode worker thread: worker threads do not inherit the tsx loader, so register it here first.
import { register } from 'tsx/esm/api';

register();
await import('./decode-worker-main.ts');
