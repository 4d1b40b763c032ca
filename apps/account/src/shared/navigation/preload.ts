/**
 * Loading a screen ahead of the navigation to it. The router says how (it holds the route table);
 * a screen that knows where it goes next asks here, so no screen imports the router.
 */
let preloader: (pathname: string) => void = () => undefined;

/** Set once by the router: starts loading the screen of a path (no-op for a loaded one). */
export function setScreenPreloader(load: (pathname: string) => void): void {
  preloader = load;
}

/** Starts loading the screen of `pathname` ahead of the navigation there. */
export function preloadScreen(pathname: string): void {
  preloader(pathname);
}
