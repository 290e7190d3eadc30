import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateOpenApiYaml } from '../../scripts/generate-openapi.js';
import { fromRoot } from '../../src/infra/paths.js';
import { makeApp } from '../helpers/app.js';

describe('OpenAPI', () => {
  let app: Awaited<ReturnType<typeof makeApp>>;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it('serves at /static/openapi.yaml exactly the document generated from the routes', async () => {
    const res = await app.inject({ url: '/static/openapi.yaml' });
    expect(res.statusCode).toBe(200);
    const generated = await generateOpenApiYaml();
    // If this fails, run `npm run generate:openapi` and commit static/openapi.yaml.
    expect(res.body).toBe(generated);
    expect(readFileSync(fromRoot('static/openapi.yaml'), 'utf8')).toBe(generated);
  });

  it('is a valid OpenAPI 3.0 document', async () => {
    const doc = parse(app.swagger({ yaml: true }));
    expect(doc.openapi).toMatch(/^3\.0\./);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
    expect(Object.keys(doc.paths)).toContain('/health');
  });

  it('lists each model once: only the schemas that some operation reaches', async () => {
    const doc = parse(app.swagger({ yaml: true }));
    const names = Object.keys(doc.components.schemas);
    const text = JSON.stringify(doc);
    for (const name of names) expect(text).toContain(`"#/components/schemas/${name}"`);
    // A response-only model is not listed again as a request model.
    expect(names).toContain('Prediction');
    expect(names).not.toContain('PredictionInput');
  });

  it('offers an example question and text to try, not "string"', async () => {
    const doc = parse(app.swagger({ yaml: true }));
    const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema.properties;
    expect(body('/rag/ask').question.example).toMatch(/\?$/);
    expect(body('/analyze/sentiment').text.example).toEqual(expect.any(String));
  });

  it('serves Swagger UI at /api/docs', async () => {
    const res = await app.inject({ url: '/api/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('swagger');
  });
});
