// Small helpers over onnx-proto for writing and reading ONNX models (tree ensembles, text models).
import onnxProto from 'onnx-proto';

export const { onnx } = onnxProto;
export type ModelProto = InstanceType<typeof onnx.ModelProto>;
export type NodeProto = onnxProto.onnx.INodeProto;

const T = onnx.AttributeProto.AttributeType;
const enc = new TextEncoder();
const dec = new TextDecoder();

export const attr = {
  int: (name: string, i: number) => ({ name, type: T.INT, i }),
  float: (name: string, f: number) => ({ name, type: T.FLOAT, f }),
  string: (name: string, s: string) => ({ name, type: T.STRING, s: enc.encode(s) }),
  ints: (name: string, ints: number[]) => ({ name, type: T.INTS, ints }),
  floats: (name: string, floats: number[]) => ({ name, type: T.FLOATS, floats }),
  strings: (name: string, strings: string[]) => ({ name, type: T.STRINGS, strings: strings.map((s) => enc.encode(s)) }),
};

/** A tensor value-info with symbolic (string) or fixed (number) dimensions. */
export function valueInfo(name: string, elemType: number, dims: (string | number)[]) {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  };
}

export const ElemType = onnx.TensorProto.DataType;

export interface ModelSpec {
  graph: Parameters<typeof onnx.GraphProto.create>[0];
  opsets: Record<string, number>;
  metadata?: Record<string, string>;
  producer: string;
  docString?: string;
}

export function encodeModel(spec: ModelSpec): Uint8Array {
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: spec.producer,
    producerVersion: '1',
    docString: spec.docString ?? '',
    opsetImport: Object.entries(spec.opsets).map(([domain, version]) => ({ domain, version })),
    graph: spec.graph,
    metadataProps: Object.entries(spec.metadata ?? {}).map(([key, value]) => ({ key, value })),
  });
  return onnx.ModelProto.encode(model).finish();
}

export function decodeModel(bytes: Uint8Array): ModelProto {
  return onnx.ModelProto.decode(bytes);
}

export function metadata(model: ModelProto): Record<string, string> {
  return Object.fromEntries((model.metadataProps ?? []).map((p) => [p.key ?? '', p.value ?? '']));
}

/** Attribute values of a node by name, decoded to plain numbers and strings. */
export function nodeAttributes(node: NodeProto): Map<string, number | string | number[] | string[]> {
  const out = new Map<string, number | string | number[] | string[]>();
  for (const a of node.attribute ?? []) {
    const name = a.name ?? '';
    switch (a.type) {
      case T.INT:
        out.set(name, Number(a.i));
        break;
      case T.FLOAT:
        out.set(name, a.f ?? 0);
        break;
      case T.STRING:
        out.set(name, dec.decode(a.s ?? new Uint8Array()));
        break;
      case T.INTS:
        out.set(name, (a.ints ?? []).map(Number));
        break;
      case T.FLOATS:
        out.set(name, a.floats ?? []);
        break;
      case T.STRINGS:
        out.set(
          name,
          (a.strings ?? []).map((s) => dec.decode(s)),
        );
        break;
      default:
        break;
    }
  }
  return out;
}
