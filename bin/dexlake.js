#!/usr/bin/env node
// The `dexlake` command: runs the TypeScript sources directly through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
