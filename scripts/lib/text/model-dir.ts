// Writes a model directory that transformers.js loads like a Hub model: config, tokenizer files, onnx/model.onnx, card.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'] as const;

/** Hugging Face tokenizers JSON: WordLevel over our vocabulary, BERT normaliser and pre-tokeniser, [CLS] x [SEP]. */
export function tokenizerJson(vocab: string[]): unknown {
  const special = (content: string, id: number) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((t, i) => special(t, i)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: null,
    model: { type: 'WordLevel', vocab: Object.fromEntries(vocab.map((w, i) => [w, i])), unk_token: '[UNK]' },
  };
}

export interface ModelDirSpec {
  dir: string;
  vocab: string[];
  dim: number;
  labels?: string[];
  onnx: Uint8Array;
  card: Record<string, unknown>;
}

export function writeModelDir(spec: ModelDirSpec): void {
  mkdirSync(join(spec.dir, 'onnx'), { recursive: true });
  const config = spec.labels
    ? {
        model_type: 'bert',
        architectures: ['BertForSequenceClassification'],
        problem_type: 'single_label_classification',
        id2label: Object.fromEntries(spec.labels.map((l, i) => [String(i), l])),
        label2id: Object.fromEntries(spec.labels.map((l, i) => [l, i])),
        hidden_size: spec.dim,
        vocab_size: spec.vocab.length,
        max_position_embeddings: 512,
      }
    : { model_type: 'bert', architectures: ['BertModel'], hidden_size: spec.dim, vocab_size: spec.vocab.length, max_position_embeddings: 512 };
  writeFileSync(join(spec.dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(join(spec.dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(spec.vocab)));
  writeFileSync(
    join(spec.dir, 'tokenizer_config.json'),
    `${JSON.stringify({ tokenizer_class: 'BertTokenizer', model_max_length: 512, do_lower_case: true, unk_token: '[UNK]', pad_token: '[PAD]', cls_token: '[CLS]', sep_token: '[SEP]' }, null, 2)}\n`,
  );
  writeFileSync(join(spec.dir, 'onnx', 'model.onnx'), spec.onnx);
  writeFileSync(join(spec.dir, 'model-card.json'), `${JSON.stringify(spec.card, null, 2)}\n`);
}
