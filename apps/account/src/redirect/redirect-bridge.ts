import { broadcastResponseToMainFrame } from '@azure/msal-browser/redirect-bridge';

// Microsoft's popup and redirect responses land here (MSAL's redirect URI). This page only hands the
// response to the window that started the sign-in (popup) or back to the start page (redirect).
broadcastResponseToMainFrame().catch((error: unknown) => {
  console.error(
    'Microsoft sign-in response could not be delivered',
    error instanceof Error ? error.message : error,
  );
});
