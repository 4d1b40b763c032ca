// `npm run admin -- <command>`: the user service admin API from a terminal.
import { runCli } from './cli-commands.ts';

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (text) => console.log(text),
  err: (text) => console.error(text),
});
