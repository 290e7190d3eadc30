// Tree ensemble <-> standard ONNX TreeEnsembleClassifier (ai.onnx.ml), the format sklearn/XGBoost/LightGBM exports use.
import { ElemType, attr, decodeModel, encodeModel, metadata, nodeAttributes } from '../onnx/proto.js';
import type { Ensemble, Tree, TreeNode } from './gbdt.js';

export const INPUT_NAME = 'input';

export interface TreeModelMeta {
  featureNames: string[];
  version: string;
}

/**
 * Writes a binary classifier: outputs `label` (int64 [N]) and `probabilities` (float [N, 2]),
 * post_transform LOGISTIC over the summed leaf weights plus the base score.
 * Node covers and feature names travel in metadata_props, since the operator has no attribute for them.
 */
export function ensembleToOnnx(model: Ensemble, meta: TreeModelMeta): Uint8Array {
  const a = {
    treeIds: [] as number[],
    nodeIds: [] as number[],
    featureIds: [] as number[],
    values: [] as number[],
    modes: [] as string[],
    trueIds: [] as number[],
    falseIds: [] as number[],
    classTreeIds: [] as number[],
    classNodeIds: [] as number[],
    classIds: [] as number[],
    classWeights: [] as number[],
  };
  model.trees.forEach((tree, t) => {
    tree.nodes.forEach((node, id) => {
      const leaf = node.feature < 0;
      a.treeIds.push(t);
      a.nodeIds.push(id);
      a.featureIds.push(leaf ? 0 : node.feature);
      a.values.push(leaf ? 0 : node.threshold);
      a.modes.push(leaf ? 'LEAF' : 'BRANCH_LEQ');
      a.trueIds.push(leaf ? 0 : node.left);
      a.falseIds.push(leaf ? 0 : node.right);
      if (leaf) {
        a.classTreeIds.push(t);
        a.classNodeIds.push(id);
        a.classIds.push(0); // binary case: one score, read as the positive class's (see ensembleFromOnnx)
        a.classWeights.push(node.value);
      }
    });
  });
  const node = {
    opType: 'TreeEnsembleClassifier',
    domain: 'ai.onnx.ml',
    name: 'trees',
    input: [INPUT_NAME],
    output: ['label', 'probabilities'],
    attribute: [
      attr.ints('classlabels_int64s', [0, 1]),
      attr.ints('nodes_treeids', a.treeIds),
      attr.ints('nodes_nodeids', a.nodeIds),
      attr.ints('nodes_featureids', a.featureIds),
      attr.floats('nodes_values', a.values),
      attr.strings('nodes_modes', a.modes),
      attr.ints('nodes_truenodeids', a.trueIds),
      attr.ints('nodes_falsenodeids', a.falseIds),
      attr.ints('nodes_missing_value_tracks_true', a.treeIds.map(() => 0)),
      attr.ints('class_treeids', a.classTreeIds),
      attr.ints('class_nodeids', a.classNodeIds),
      attr.ints('class_ids', a.classIds),
      attr.floats('class_weights', a.classWeights),
      attr.floats('base_values', [model.baseScore]),
      attr.string('post_transform', 'LOGISTIC'),
    ],
  };
  return encodeModel({
    producer: 'survival-gbdt',
    docString: 'Gradient-boosted trees for Titanic survival',
    opsets: { '': 17, 'ai.onnx.ml': 3 },
    graph: {
      name: 'survival',
      node: [node],
      input: [{ ...valueInfoFloat(INPUT_NAME, model.nFeatures) }],
      output: [
        { name: 'label', type: { tensorType: { elemType: ElemType.INT64, shape: { dim: [{ dimParam: 'N' }] } } } },
        {
          name: 'probabilities',
          type: { tensorType: { elemType: ElemType.FLOAT, shape: { dim: [{ dimParam: 'N' }, { dimValue: 2 }] } } },
        },
      ],
    },
    metadata: {
      feature_names: JSON.stringify(meta.featureNames),
      node_covers: JSON.stringify(model.trees.map((t) => t.nodes.map((n) => n.cover))),
      model_version: meta.version,
    },
  });
}

function valueInfoFloat(name: string, width: number) {
  return {
    name,
    type: { tensorType: { elemType: ElemType.FLOAT, shape: { dim: [{ dimParam: 'N' }, { dimValue: width }] } } },
  };
}

/** Reads the trees back from an ONNX TreeEnsembleClassifier (ours, or any binary one with BRANCH_LEQ/LT nodes). */
export function ensembleFromOnnx(bytes: Uint8Array): { model: Ensemble; meta: TreeModelMeta } {
  const proto = decodeModel(bytes);
  const node = proto.graph?.node?.find((n) => n.opType === 'TreeEnsembleClassifier');
  if (!node) throw new Error('the ONNX file has no TreeEnsembleClassifier node');
  const at = nodeAttributes(node);
  const ints = (k: string) => (at.get(k) as number[] | undefined) ?? [];
  const floats = ints;
  const modes = (at.get('nodes_modes') as string[] | undefined) ?? [];
  if (at.get('post_transform') !== 'LOGISTIC') throw new Error('only LOGISTIC post_transform is supported');
  const bad = modes.find((m) => m !== 'LEAF' && m !== 'BRANCH_LEQ');
  if (bad) throw new Error(`unsupported node mode ${bad}`);
  const md = metadata(proto);
  const covers = md.node_covers ? (JSON.parse(md.node_covers) as number[][]) : undefined;

  const treeIds = ints('nodes_treeids');
  const trees: Tree[] = [];
  treeIds.forEach((t, k) => {
    const id = ints('nodes_nodeids')[k]!;
    const tree = (trees[t] ??= { nodes: [] });
    const leaf = modes[k] === 'LEAF';
    const n: TreeNode = {
      feature: leaf ? -1 : ints('nodes_featureids')[k]!,
      threshold: leaf ? 0 : floats('nodes_values')[k]!,
      left: leaf ? -1 : ints('nodes_truenodeids')[k]!,
      right: leaf ? -1 : ints('nodes_falsenodeids')[k]!,
      value: 0,
      cover: covers?.[t]?.[id] ?? 1,
    };
    tree.nodes[id] = n;
  });
  const classTrees = ints('class_treeids');
  const classNodes = ints('class_nodeids');
  const classIds = ints('class_ids');
  const weights = floats('class_weights');
  // ONNX Runtime's binary case: when every weight names the same class id, the summed weights are the
  // positive class's score (sklearn-onnx writes class id 0 this way). Two ids would be a two-score model.
  if (new Set(classIds).size > 1) throw new Error('only single-score binary tree ensembles are supported');
  classTrees.forEach((t, k) => {
    trees[t]!.nodes[classNodes[k]!]!.value += weights[k]!;
  });
  const base = floats('base_values')[0] ?? 0;
  const nFeatures = Number(proto.graph?.input?.[0]?.type?.tensorType?.shape?.dim?.[1]?.dimValue ?? 0);
  const featureNames = md.feature_names ? (JSON.parse(md.feature_names) as string[]) : [];
  return {
    model: { trees, baseScore: base, nFeatures },
    meta: { featureNames, version: md.model_version ?? 'unknown' },
  };
}
