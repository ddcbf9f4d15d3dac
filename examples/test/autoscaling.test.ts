// The autoscaling manifests in examples/autoscaling/ are for users' clusters and never applied
// here (no Kubernetes): these checks validate them against the resources' published schemas
// (KEDA's ScaledObject CRD, Kubernetes' autoscaling/v2) and keep the KEDA and HPA variants in
// step. test/autoscaling-promql.int.test.ts runs their queries against a real Prometheus.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { parse } from 'yaml';

const DIR = join(__dirname, '..', 'autoscaling');
const read = (name: string): unknown => parse(readFileSync(join(DIR, name), 'utf8'));

type ScaledObjectData = ConstructorParameters<typeof ScaledObject>[0] & {};
type HpaData = ConstructorParameters<typeof HorizontalPodAutoscaler>[0] & {};

/** A fresh parse of the manifest each call, so a test may mutate its copy. */
const scaledObjectData = (): ScaledObjectData => read('keda-scaledobject.yaml') as ScaledObjectData;
const hpaData = (): HpaData => read('hpa.yaml') as HpaData;

describe('examples/autoscaling/keda-scaledobject.yaml', () => {
  it("is a valid ScaledObject by KEDA's CRD schema", () => {
    const data = scaledObjectData();
    expect(() => {
      new ScaledObject(data).validate();
    }).not.toThrow();
    expect(ScaledObject.is(data)).toBe(true);
  });

  // Proof that the validation bites: the same manifest with one field broken is refused.
  it.each<[string, (d: ScaledObjectData) => void, RegExp]>([
    [
      'an apiVersion KEDA does not serve',
      (d) => {
        (d as { apiVersion?: string }).apiVersion = 'keda.sh/v1';
      },
      /apiVersion must be equal to one of the allowed values/,
    ],
    [
      'an unquoted threshold (a number where KEDA wants a string)',
      (d) => {
        d.spec.triggers[0]!.metadata['threshold'] = 1 as unknown as string;
      },
      /triggers\/0\/metadata\/threshold must be string/,
    ],
    [
      'a scale target without a name',
      (d) => {
        delete (d.spec.scaleTargetRef as { name?: string }).name;
      },
      /scaleTargetRef must have required property name/,
    ],
    [
      'a stabilization window with a unit',
      (d) => {
        d.spec.advanced!.horizontalPodAutoscalerConfig!.behavior!.scaleDown!.stabilizationWindowSeconds =
          '600s' as unknown as number;
      },
      /stabilizationWindowSeconds must be integer/,
    ],
  ])('is refused with %s', (_what, mutate, expected) => {
    const data = scaledObjectData();
    mutate(data);
    expect(() => {
      new ScaledObject(data).validate();
    }).toThrow(expected);
  });

  it('scales to the desired instances: Prometheus trigger, AverageValue, threshold 1, no answer is an error', () => {
    const trigger = scaledObjectData().spec.triggers;
    expect(trigger).toHaveLength(1);
    expect(trigger[0]).toMatchObject({
      type: 'prometheus',
      metricType: 'AverageValue',
      metadata: {
        query: 'max(load_aware_desired_instances{group="orders"})',
        threshold: '1',
        ignoreNullValues: 'false',
      },
    });
  });
});

describe('examples/autoscaling/hpa.yaml', () => {
  it('is a valid autoscaling/v2 HorizontalPodAutoscaler', () => {
    const data = hpaData();
    expect(() => {
      new HorizontalPodAutoscaler(data).validate();
    }).not.toThrow();
    expect(HorizontalPodAutoscaler.is(data)).toBe(true);
  });

  it.each<[string, (d: HpaData) => void, RegExp]>([
    [
      'maxReplicas as a string',
      (d) => {
        d.spec!.maxReplicas = '12' as unknown as number;
      },
      /spec\/maxReplicas must be integer/,
    ],
    [
      'an external metric without a name',
      (d) => {
        delete (d.spec!.metrics![0]!.external!.metric as { name?: string }).name;
      },
      /external\/metric must have required property name/,
    ],
  ])('is refused with %s', (_what, mutate, expected) => {
    const data = hpaData();
    mutate(data);
    expect(() => {
      new HorizontalPodAutoscaler(data).validate();
    }).toThrow(expected);
  });

  it("reads the adapter's External metric for group orders with an average value of 1 per pod", () => {
    const metrics = hpaData().spec!.metrics!;
    expect(metrics).toEqual([
      {
        type: 'External',
        external: {
          metric: { name: 'load_aware_desired_instances', selector: { matchLabels: { group: 'orders' } } },
          target: { type: 'AverageValue', averageValue: '1' },
        },
      },
    ]);
  });

  it('scales the same target, within the same bounds and with the same behavior as the ScaledObject', () => {
    const hpa = hpaData().spec!;
    const keda = scaledObjectData().spec;
    expect(hpa.scaleTargetRef).toEqual(keda.scaleTargetRef);
    expect([hpa.minReplicas, hpa.maxReplicas]).toEqual([keda.minReplicaCount, keda.maxReplicaCount]);
    expect(hpa.behavior).toEqual(keda.advanced!.horizontalPodAutoscalerConfig!.behavior);
    // The recommendation of docs/autoscaling.md: scale-downs, each a rebalance, wait and go one by one.
    expect(hpa.behavior!.scaleDown).toEqual({
      stabilizationWindowSeconds: 600,
      policies: [{ type: 'Pods', value: 1, periodSeconds: 300 }],
    });
  });
});

describe('examples/autoscaling/prometheus-adapter.yaml', () => {
  it("serves the HPA's metric name, unnamespaced, as the max over the selected series", () => {
    const config = read('prometheus-adapter.yaml') as {
      externalRules: Array<{ seriesQuery: string; resources: { namespaced: boolean }; metricsQuery: string }>;
    };
    const metricName = hpaData().spec!.metrics![0]!.external!.metric.name;
    expect(config.externalRules).toHaveLength(1);
    const rule = config.externalRules[0]!;
    // The adapter names the metric after the series (no `name` rule), so it must be the HPA's.
    expect(rule.seriesQuery.split('{')[0]).toBe(metricName);
    expect(rule.resources).toEqual({ namespaced: false });
    expect(rule.metricsQuery).toBe('max(<<.Series>>{<<.LabelMatchers>>}) by (group)');
  });
});

describe('examples/autoscaling/prometheus-rules.yaml', () => {
  it('alerts per group while scale-out is futile', () => {
    const rules = read('prometheus-rules.yaml') as {
      groups: Array<{ rules: Array<{ alert: string; expr: string; for: string }> }>;
    };
    expect(rules.groups.flatMap((g) => g.rules)).toEqual([
      expect.objectContaining({
        alert: 'LoadAwareScaleOutFutile',
        expr: 'max by (group) (load_aware_scale_out_futile) == 1',
        for: '15m',
      }),
    ]);
  });
});
