// Validates an OpenAPI document (JSON on stdin) with @seriousme/openapi-schema-validator, which is
// an ES module jest cannot load: the OpenAPI test runs this script in a child process.
import { Validator } from '@seriousme/openapi-schema-validator';

let text = '';
for await (const chunk of process.stdin) text += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(text));
process.stdout.write(JSON.stringify({ version: validator.version, ...result }));
