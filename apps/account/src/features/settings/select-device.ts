// A session's device as people name it: browser and operating system, read from the user agent.

export interface DeviceLabel {
  browser: string;
  os: string;
}

// Order matters: Edge and Opera carry "Chrome", Chrome carries "Safari".
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/\bOPR\/(\d+)/, 'Opera'],
  [/\bFirefox\/(\d+)|\bFxiOS\/(\d+)/, 'Firefox'],
  [/\bCriOS\/(\d+)|\b(?:Headless)?Chrome\/(\d+)/, 'Chrome'],
  [/\bVersion\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];

const SYSTEMS: [RegExp, string][] = [
  [/\bWindows NT\b/, 'Windows'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/** "Chrome 131" and "macOS", or "Unknown browser" / "Unknown system" when the agent says nothing known. */
export function selectDevice(userAgent: string | undefined | null): DeviceLabel {
  const ua = (userAgent ?? '').slice(0, 512);
  let browser = 'Unknown browser';
  for (const [re, name] of BROWSERS) {
    const m = re.exec(ua);
    if (m) {
      const version = m.slice(1).find(Boolean);
      browser = version ? `${name} ${version}` : name;
      break;
    }
  }
  const os = SYSTEMS.find(([re]) => re.test(ua))?.[1] ?? 'Unknown system';
  return { browser, os };
}
