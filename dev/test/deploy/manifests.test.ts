import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '@acme/cluster/processes';
import { partEnv } from '@acme/cluster/service-env';
import { PART_LISTENERS, systemShape, USUAL_PORTS, type Part } from '@acme/system-shape';

/**
 * deploy/kubernetes/: every manifest of the Kustomize base against the Kubernetes API's schemas
 * (kubernetes-models, no download), and the rules a reviewer would check by eye.
 */
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a manifest's spec, checked below
  spec: any;
}

const base = join(repoRoot, 'deploy', 'kubernetes', 'base');
const kustomization = parseAllDocuments(
  readFileSync(join(base, 'kustomization.yaml'), 'utf8'),
)[0]!.toJS() as {
  resources: string[];
};
const manifests: Manifest[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(readFileSync(join(base, file), 'utf8')).map((d) => d.toJS() as Manifest),
);
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;
interface Pod {
  securityContext: { fsGroup?: number };
  volumes?: {
    name: string;
    secret?: { secretName: string; defaultMode?: number; items: { key: string; path: string }[] };
  }[];
  initContainers?: Container[];
  containers: Container[];
}
interface Container {
  name: string;
  env?: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; optional?: boolean } };
  }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
const of = (kind: string) => manifests.filter((m) => m.kind === kind);
const SERVICES = ['identity', 'oauth2', 'users', 'agent', 'account'];

/** The model class of a manifest's kind, from kubernetes-models. */
async function validate(m: Manifest): Promise<void> {
  const [group, apiVersion] = m.apiVersion.includes('/')
    ? m.apiVersion.split('/')
    : [undefined, m.apiVersion];
  const path = group
    ? `kubernetes-models/${group}/${apiVersion}/${m.kind}`
    : `kubernetes-models/${apiVersion}/${m.kind}`;
  const models = (await import(path)) as Record<string, new (m: Manifest) => { validate(): void }>;
  new models[m.kind]!(m).validate();
}

describe('deploy/kubernetes manifests', () => {
  it('every manifest validates against the Kubernetes API schema of its kind', async () => {
    expect(manifests.length).toBeGreaterThan(20);
    for (const m of manifests)
      await expect(validate(m), `${m.kind} ${m.metadata.name}`).resolves.toBeUndefined();
  });

  it('the schema check can fail: a Deployment with a wrong type is refused', async () => {
    const broken = structuredClone(of('Deployment')[0]!);
    broken.spec.replicas = 'two';
    await expect(validate(broken)).rejects.toThrow(/replicas/);
  });

  it('a Deployment, a Service, a PodDisruptionBudget and an HPA per service', () => {
    for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler'])
      expect(new Set(of(kind).map((m) => m.metadata.name.replace(/-admin$/, '')))).toEqual(new Set(SERVICES));
    for (const hpa of of('HorizontalPodAutoscaler')) expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
  });

  it('every container is locked down, bounded and probed, and runs the image of its part and version', () => {
    const pods = [...of('Deployment'), ...of('Job')].map((m) => m.spec.template.spec);
    for (const pod of pods) {
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
        expect(c.securityContext, c.name).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(Object.keys(c.resources.requests).sort()).toEqual(['cpu', 'memory']);
        expect(Object.keys(c.resources.limits).sort()).toEqual(['cpu', 'memory']);
        expect(c.image).toBe(`acme-account/${c.args[0]}:${version}`);
      }
    }
    for (const d of of('Deployment')) {
      const [c] = d.spec.template.spec.containers;
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'])
        expect(c[probe], `${d.metadata.name} ${probe}`).toBeDefined();
    }
  });

  it('the services run as the rows-only role with migration at start off; the Job migrates as the migrator', () => {
    for (const d of of('Deployment').filter((m) => m.metadata.name !== 'account')) {
      const [c] = d.spec.template.spec.containers;
      const env = Object.fromEntries((c.env as { name: string; value?: string }[]).map((e) => [e.name, e]));
      expect(env.DATABASE_URL_FILE!.value).toBe('/run/secrets/acme/database-url');
      const prefix = d.metadata.name.toUpperCase();
      expect(env[`${prefix}_MIGRATE_AT_START`]?.value, d.metadata.name).toBe('false');
    }
    const [job] = of('Job');
    const steps = [...job!.spec.template.spec.initContainers, ...job!.spec.template.spec.containers];
    expect(steps.map((c: { args: string[] }) => c.args)).toEqual(
      ['identity', 'oauth2', 'users', 'agent'].map((part) => [part, 'migrate']),
    );
    for (const c of steps)
      expect(c.env[0]).toEqual({
        name: 'DATABASE_URL_FILE',
        value: '/run/secrets/acme/migrator-database-url',
      });
    const roles = readFileSync(join(repoRoot, 'deploy', 'kubernetes', 'database', 'roles.sql'), 'utf8');
    expect(roles).toMatch(/grant select, insert, update, delete on tables to acme_app/);
    expect(roles).not.toMatch(/grant (all|create)[^;]*acme_app/i);
  });

  it('the ports are those of npm start, and the admin ports are open only to pods of the namespace', () => {
    const admin: number[] = [
      USUAL_PORTS.identityAdmin,
      USUAL_PORTS.oauth2Admin,
      USUAL_PORTS.usersAdmin,
      USUAL_PORTS.agentAdmin,
    ];
    const ports = of('Deployment').flatMap((d) =>
      d.spec.template.spec.containers[0].ports.map((p: { containerPort: number }) => p.containerPort),
    );
    expect(new Set(ports)).toEqual(
      new Set(
        Object.entries(USUAL_PORTS)
          .filter(
            ([name]) =>
              !['standIns', 'smtp', 'entra', 'graph', 'orgIdp', 'samlIdp', 'marketplace', 'demoApp'].includes(
                name,
              ),
          )
          .map(([, p]) => p),
      ),
    );
    const [policy] = of('NetworkPolicy');
    const [open, inside] = policy!.spec.ingress as { from?: unknown[]; ports: { port: number }[] }[];
    expect(open!.ports.map((p) => p.port).filter((p) => p >= 9000)).toEqual([]);
    expect(open!.from).toBeUndefined();
    expect(open!.ports.map((p) => p.port).filter((p) => admin.includes(p))).toEqual([]);
    expect(inside).toEqual({ from: [{ podSelector: {} }], ports: admin.map((port) => ({ port })) });
    // Every admin API a service calls is named by its in-cluster Service and allowed by its owner.
    const [config] = of('ConfigMap') as unknown as { data: Record<string, string> }[];
    expect(config!.data.IDENTITY_ADMIN_URL).toBe(`http://identity-admin:${USUAL_PORTS.identityAdmin}`);
    expect(config!.data.OAUTH2_ADMIN_URL).toBe(`http://oauth2-admin:${USUAL_PORTS.oauth2Admin}`);
    expect(config!.data.USERS_ADMIN_URL).toBe(`http://users-admin:${USUAL_PORTS.usersAdmin}`);
    expect(of('Service').map((s) => s.metadata.name)).toEqual(
      expect.arrayContaining(['identity-admin', 'oauth2-admin', 'users-admin', 'agent-admin']),
    );
  });
});

describe('deploy/kubernetes management ports', () => {
  it("probes and Prometheus use each pod's management port, open to pods of the namespace only", () => {
    const management: Record<string, number> = {
      identity: USUAL_PORTS.identityManagement,
      oauth2: USUAL_PORTS.oauth2Management,
      users: USUAL_PORTS.usersManagement,
      agent: USUAL_PORTS.agentManagement,
      account: USUAL_PORTS.accountManagement,
    };
    for (const d of of('Deployment')) {
      const port = management[d.metadata.name]!;
      const pod = d.spec.template;
      const [c] = pod.spec.containers;
      expect(c.ports).toContainEqual({ name: 'management', containerPort: port });
      const env = Object.fromEntries(
        (c.env as { name: string; value?: string }[]).map((e) => [e.name, e.value]),
      );
      const prefix = d.metadata.name.toUpperCase();
      expect(env[`${prefix}_MANAGEMENT_PORT`]).toBe(String(port));
      // By pod IP: bound to every interface (it serves no secret and changes nothing).
      expect(env[`${prefix}_MANAGEMENT_HOST`]).toBe('0.0.0.0');
      expect(pod.metadata.annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      });
      for (const [probe, path] of [
        ['startupProbe', '/health/alive'],
        ['readinessProbe', '/health/ready'],
        ['livenessProbe', '/health/alive'],
      ] as const)
        expect(c[probe].httpGet, `${d.metadata.name} ${probe}`).toEqual({ path, port: 'management' });
    }
    const [policy] = of('NetworkPolicy');
    const scrape = (policy!.spec.ingress as { from?: unknown[]; ports: { port: number }[] }[])[2];
    expect(scrape).toEqual({
      from: [{ podSelector: {} }],
      ports: Object.values(management).map((port) => ({ port })),
    });
  });
});

describe('deploy/kubernetes secrets', () => {
  it("secrets are files of the Secret (the settings' *_FILE form): no key, secret or database URL has a value in a manifest", () => {
    const pods = [...of('Deployment'), ...of('Job')].map((m) => m.spec.template.spec as Pod);
    let secretSettings = 0;
    for (const pod of pods) {
      const volume = pod.volumes?.find((v) => v.name === 'secrets')?.secret;
      for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
        for (const e of (c.env ?? []).filter((e) =>
          /KEY|SECRET|DATABASE_URL|SMTP_URL|PASSWORD/.test(e.name),
        )) {
          secretSettings++;
          if (e.valueFrom) {
            // Only an optional secret stays an environment reference (a missing file would stop the start).
            expect(e.valueFrom.secretKeyRef, e.name).toMatchObject({
              name: 'acme-account-secrets',
              optional: true,
            });
            continue;
          }
          expect(e.name, e.name).toMatch(/_FILE$/);
          expect(e.value, e.name).toMatch(/^\/run\/secrets\/acme\/[a-z0-9-]+$/);
          const file = e.value!.split('/').pop();
          expect(volume?.secretName, e.name).toBe('acme-account-secrets');
          expect(volume?.items, e.name).toContainEqual({ key: file, path: file });
          expect(c.volumeMounts, c.name).toContainEqual({
            name: 'secrets',
            mountPath: '/run/secrets/acme',
            readOnly: true,
          });
        }
      }
      if (volume) {
        expect(volume.defaultMode).toBe(0o440);
        expect(pod.securityContext.fsGroup).toBe(10001);
      }
    }
    expect(secretSettings).toBeGreaterThan(10);
    expect(of('Secret')).toEqual([]);
    const config = JSON.stringify(of('ConfigMap'));
    expect(config).not.toMatch(/KEY|SECRET|PASSWORD|postgres:\/\//);
  });
});

describe("deploy/kubernetes and the system's shape", () => {
  // The shape of a deployment: every public listener at https://<name>.example.com, every admin
  // listener at its in-cluster Service; the ports are npm start's (no offset).
  const deployed = systemShape({ host: 'example.com', tls: true });
  const services = ['identity', 'oauth2', 'users', 'agent', 'account'] as const satisfies readonly Part[];
  const envOf = (part: Part) => partEnv(part, deployed.ports, deployed.listeners);

  it("every URL of the ConfigMap is the one the shape gives that setting (the parts' environment)", () => {
    // Merged as the ConfigMap is: one value per setting for every part (APP_ORIGINS in its
    // application=origin form, which every service reads).
    const expected: Record<string, string> = {
      ...envOf('users'),
      ...envOf('agent'),
      ...envOf('identity'),
      ...envOf('account'),
      ...envOf('oauth2'),
      // The operator's command line (npm run admin) reaches the agent service's admin API here.
      AGENT_ADMIN_URL: deployed.listeners.agentAdmin,
    };
    const [config] = of('ConfigMap') as unknown as { data: Record<string, string> }[];
    const urls = Object.entries(config!.data).filter(([, value]) => value.includes('://'));
    expect(urls.length).toBeGreaterThan(15);
    for (const [name, value] of urls) expect(value, name).toBe(expected[name]);
  });

  it("every Deployment listens on the ports of its part's listeners, and is told them as the shape says", () => {
    for (const d of of('Deployment')) {
      const part = d.metadata.name as (typeof services)[number];
      expect(services).toContain(part);
      const [c] = d.spec.template.spec.containers;
      const ports = PART_LISTENERS[part].map((listener) => USUAL_PORTS[listener]);
      expect(c.ports.map((p: { containerPort: number }) => p.containerPort).sort(), part).toEqual(
        [...ports].sort(),
      );
      const env = envOf(part);
      const told = (c.env as { name: string; value?: string }[]).filter(
        (e) => /_PORTS?$/.test(e.name) && e.value !== undefined,
      );
      expect(told.length, part).toBeGreaterThan(0);
      for (const e of told) expect(e.value, `${part} ${e.name}`).toBe(env[e.name]);
    }
    for (const s of of('Service')) {
      const part = s.metadata.name.replace(/-admin$/, '') as Part;
      const ports = PART_LISTENERS[part].map((listener) => USUAL_PORTS[listener]);
      for (const p of s.spec.ports as { port: number }[]) expect(ports, s.metadata.name).toContain(p.port);
    }
  });
});
