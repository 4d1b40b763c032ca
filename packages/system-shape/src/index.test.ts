import { describe, expect, it } from 'vitest';
import {
  ADMIN_LISTENER,
  APPLICATIONS,
  PART_LISTENERS,
  PARTS,
  PUBLIC_HOSTS,
  systemShape,
  systemUrls,
  USUAL_PORTS,
  type Listener,
} from './index.ts';

describe("the system's shape", () => {
  it('every listener belongs to exactly one part, and no two listeners share a port', () => {
    const owned = PARTS.flatMap((part) => PART_LISTENERS[part]);
    expect([...owned].sort()).toEqual(Object.keys(USUAL_PORTS).sort());
    expect(new Set(Object.values(USUAL_PORTS)).size).toBe(Object.keys(USUAL_PORTS).length);
  });

  it('the applications are consecutive from 4000 in their order', () => {
    expect(APPLICATIONS.map((app) => USUAL_PORTS[app])).toEqual(APPLICATIONS.map((_, i) => 4000 + i));
  });

  it('an offset moves every port and every URL with it', () => {
    const shape = systemShape({ offset: 9000 });
    for (const [listener, port] of Object.entries(USUAL_PORTS) as [Listener, number][]) {
      expect(shape.ports[listener]).toBe(port + 9000);
      expect(shape.listeners[listener]).toBe(`http://localhost:${port + 9000}`);
    }
    expect(shape.apps.magic).toBe('http://localhost:13001');
    const urls = systemUrls(shape);
    expect(urls.teamsHost).toBe('http://localhost:13001/dev/teams-host');
    expect(urls.management.account).toBe('http://localhost:18005');
    expect(urls.smtp).toBe('smtp://localhost:11525');
  });

  it("a deployment's shape: public listeners at https://<name>.<domain>, admin ones at their in-cluster Service", () => {
    const shape = systemShape({ host: 'example.com', tls: true });
    expect(shape.listeners.identityPublic).toBe('https://id.example.com');
    expect(shape.apps['ai-sandbox']).toBe('https://ai-sandbox.example.com');
    for (const [part, listener] of Object.entries(ADMIN_LISTENER))
      expect(shape.listeners[listener]).toBe(`http://${part}-admin:${USUAL_PORTS[listener]}`);
    const hosts = Object.keys(PUBLIC_HOSTS).map((l) => new URL(shape.listeners[l as Listener]).host);
    expect(new Set(hosts).size).toBe(hosts.length);
  });
});
