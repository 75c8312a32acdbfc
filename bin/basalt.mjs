#!/usr/bin/env node
// `npx basalt` / an installed `basalt` command: the same entry point as `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
