import type { ReactNode } from 'react';
import {
  Button,
  Dialog,
  DialogTrigger,
  Menu,
  MenuItem,
  MenuTrigger,
  Popover,
  RouterProvider,
  Separator,
} from 'react-aria-components';
import { CONSOLE_PATHS, initialPagePath, paths } from '../config/paths.ts';
import { getConfig } from '../config/env.ts';
import { navigate, searchParams, useLocation } from '../navigation/history.ts';
import { Link } from '../ui/link.tsx';
import { carryFrom, knownApplication, selectBackLink } from './select-back-link.ts';
import type { ShellPerson } from './select-shell-person.ts';
import { shellCopy as t } from './shell-copy.ts';
import { useShellPerson } from './use-shell-person.ts';
import './shell.css';

/** One entry of a screen's section navigation. */
interface ShellNavItem {
  href: string;
  label: string;
  current: boolean;
}

export interface ShellNav {
  /** The navigation landmark's name (e.g. "Admin sections"). */
  label: string;
  items: readonly ShellNavItem[];
}

/**
 * The frame of every signed-in screen: a header (the application, the organisation, the person's
 * menu), "Back to <application>" when the page was opened from one (`from` in its query), and the
 * screen's sections (a side list on wide screens, a menu on narrow ones). The screen brings its own
 * `<main>`. Menus and the narrow navigation are React Aria's (focus, keys and dismissal included).
 */
export function AppShell({ nav, children }: { nav?: ShellNav; children: ReactNode }) {
  const config = getConfig();
  const location = useLocation();
  const from = knownApplication(searchParams(location.search).from);
  // The admin application's home is its console; every other application's, its initial page.
  const home = config.application === 'admin' ? CONSOLE_PATHS.home : initialPagePath(config.initialPage);
  const back = selectBackLink(from, config, home);
  const person = useShellPerson();
  const items = nav?.items.map((item) => ({ ...item, href: carryFrom(item.href, from) }));
  return (
    <RouterProvider navigate={(href) => navigate(href)}>
      <div className="shell">
        <header className="shell-header">
          <div className="shell-brand">
            <a className="shell-app" href={home}>
              {config.appName}
            </a>
            {person?.organisation ? (
              <span className="shell-org" data-testid="shell-organisation">
                <span className="visually-hidden">{t.organisation}: </span>
                {person.organisation}
              </span>
            ) : null}
          </div>
          {person ? <PersonMenu person={person} from={from ?? config.application} /> : null}
        </header>
        {back ? (
          <p className="shell-back">
            <a href={back.href}>{t.backTo(back.name)}</a>
          </p>
        ) : null}
        <div className={items ? 'shell-body with-nav' : 'shell-body'}>
          {nav && items ? <SectionNav label={nav.label} items={items} /> : null}
          <div className="shell-content">{children}</div>
        </div>
      </div>
    </RouterProvider>
  );
}

function PersonMenu({ person, from }: { person: ShellPerson; from: string }) {
  const config = getConfig();
  const consoleHref =
    config.application === 'admin'
      ? CONSOLE_PATHS.home
      : `${config.urlMap.admin}${CONSOLE_PATHS.home}?from=${encodeURIComponent(config.application)}`;
  return (
    <MenuTrigger>
      <Button className="shell-person" aria-label={t.personMenu(person.name)}>
        <span className="shell-person-name" data-testid="shell-person">
          {person.name}
        </span>
        <span className="shell-caret" aria-hidden="true">
          ▾
        </span>
      </Button>
      <Popover className="shell-popover" placement="bottom end">
        <Menu className="shell-menu" aria-label={t.personMenu(person.name)}>
          <MenuItem className="shell-menu-item" href={carryFrom(paths.settings, from)}>
            {t.settings}
          </MenuItem>
          {person.mayOpenConsole ? (
            <MenuItem className="shell-menu-item" href={consoleHref}>
              {t.console}
            </MenuItem>
          ) : null}
          <Separator className="shell-separator" />
          <MenuItem className="shell-menu-item" href={paths.logout}>
            {t.signOut}
          </MenuItem>
        </Menu>
      </Popover>
    </MenuTrigger>
  );
}

function SectionList({ items, onOpen }: { items: readonly ShellNavItem[]; onOpen?: () => void }) {
  return (
    <ul className="shell-nav-list">
      {items.map((item) => (
        <li key={item.href}>
          <Link href={item.href} aria-current={item.current ? 'page' : undefined} onClick={onOpen}>
            {item.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Wide screens: the side list. Narrow ones: a button opening the same list in a popover. */
function SectionNav({ label, items }: { label: string; items: readonly ShellNavItem[] }) {
  const current = items.find((i) => i.current)?.label ?? '';
  return (
    <>
      <nav className="shell-nav wide" aria-label={label}>
        <SectionList items={items} />
      </nav>
      <div className="shell-nav narrow">
        <DialogTrigger>
          <Button className="button secondary shell-nav-button">{t.sectionsButton(label, current)}</Button>
          <Popover className="shell-popover" placement="bottom start">
            <Dialog className="shell-dialog" aria-label={label}>
              {({ close }) => (
                <nav aria-label={label}>
                  <SectionList items={items} onOpen={close} />
                </nav>
              )}
            </Dialog>
          </Popover>
        </DialogTrigger>
      </div>
    </>
  );
}
