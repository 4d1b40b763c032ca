// Load child: one autocannon run with the options given on stdin; prints autocannon's result.
import autocannon from 'autocannon';
import { readInput } from './child.ts';

const options = await readInput<autocannon.Options>();
const result = await autocannon(options);
console.log(JSON.stringify(result));
