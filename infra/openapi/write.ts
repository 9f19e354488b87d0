/** `npm run openapi`: writes docs/openapi.json from the code. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '../paths.js';
import { buildDocument, serialize } from './document.js';

const target = join(repositoryRoot, 'docs', 'openapi.json');
writeFileSync(target, serialize(await buildDocument()));
console.log(`wrote ${target}`);
