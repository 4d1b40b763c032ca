// `npm run admin -- <command>`: the user service admin API from a terminal.
import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { runCli } from './cli-commands.ts';

exitOnUnhandledErrors('admin-cli');

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (text) => console.log(text),
  err: (text) => console.error(text),
});
