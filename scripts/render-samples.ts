// Renders the sample explanation plots shown in the README into docs/images/.
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { fromRoot } from '../src/infra/paths.js';

const dataDir = mkdtempSync(join(tmpdir(), 'samples-'));
const app = await buildApp({ overrides: { DATA_DIR: dataDir }, logger: false });
const passengers = {
  'first-class-woman': { pclass: 1, sex: 'female', age: 29, sibsp: 0, parch: 0, embarked: 'C', name_title: 'Mrs' },
  'third-class-man': { pclass: 3, sex: 'male', age: 30, sibsp: 1, parch: 2, embarked: 'S' },
};
for (const [who, passenger] of Object.entries(passengers)) {
  for (const plot_type of ['waterfall', 'force', 'bar']) {
    const res = await app.inject({ method: 'POST', url: '/api/explain', payload: { ...passenger, plot_type } });
    const url = res.json<{ explanation_image_url: string }>().explanation_image_url;
    const out = fromRoot(`docs/images/shap-${plot_type}-${who}.png`);
    copyFileSync(join(dataDir, 'images', url.split('/').pop()!), out);
    console.log(`wrote ${out}`);
  }
}
const importance = await app.inject({ url: '/api/model/importance.png' });
writeFileSync(fromRoot('docs/images/global-importance.png'), importance.rawPayload);
await app.close();
