#!/usr/bin/env node
// Entry point of the `solgate` command: runs the TypeScript CLI through tsx's loader.
import { register } from 'tsx/esm/api';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

register();
const here = dirname(fileURLToPath(import.meta.url));
await import(pathToFileURL(join(here, '..', 'src', 'cli', 'main.ts')).href);
