/**
 * V8's compile cache (Node.js 22.1 and later): the bytecode of the modules a command loads is kept on disk (in the
 * system's temporary directory, or where NODE_COMPILE_CACHE says) and reused by the next start, instead of every
 * `solgate` command compiling its modules again. Imported first by the command (src/cli/main.ts), for its side
 * effect: it covers the subcommand modules, which are loaded after it. Worker threads and child processes do not
 * inherit an enabled cache, but they read NODE_COMPILE_CACHE at their start, so it is set to the cache's directory.
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off; on Node.js 20 this does nothing.
 */
import module from 'node:module';

const enable = (module as unknown as { enableCompileCache?: () => { status: number; directory?: string } }).enableCompileCache;
const dir = enable?.().directory;
if (dir && !process.env.NODE_COMPILE_CACHE) process.env.NODE_COMPILE_CACHE = dir;
