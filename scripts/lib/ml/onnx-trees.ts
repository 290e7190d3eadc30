// Tree ensemble -> standard ONNX TreeEnsembleClassifier (ai.onnx.ml), the format sklearn/XGBoost/LightGBM exports use.
import { ElemType, attr, encodeModel } from '../../../src/infra/onnx-proto.js';
import { type Ensemble, INPUT_NAME, type TreeModelMeta } from '../../../src/infra/tree-ensemble.js';

/**
 * Writes a binary classifier: outputs `label` (int64 [N]) and `probabilities` (float [N, 2]),
 * post_transform LOGISTIC over the summed leaf weights plus the base score.
 * Node covers and feature names travel in metadata_props, since the operator has no attribute for them.
 */
export function ensembleToOnnx(
  model: Ensemble,
  meta: TreeModelMeta,
  about: { producer: string; docString: string; graph: string } = {
    producer: 'survival-gbdt',
    docString: 'Gradient-boosted trees for Titanic survival',
    graph: 'survival',
  },
): Uint8Array {
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
      attr.ints(
        'nodes_missing_value_tracks_true',
        a.treeIds.map(() => 0),
      ),
      attr.ints('class_treeids', a.classTreeIds),
      attr.ints('class_nodeids', a.classNodeIds),
      attr.ints('class_ids', a.classIds),
      attr.floats('class_weights', a.classWeights),
      attr.floats('base_values', [model.baseScore]),
      attr.string('post_transform', 'LOGISTIC'),
    ],
  };
  return encodeModel({
    producer: about.producer,
    docString: about.docString,
    opsets: { '': 17, 'ai.onnx.ml': 3 },
    graph: {
      name: about.graph,
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
