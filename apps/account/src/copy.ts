// Every user-facing text of the specification, in one place.
// Placeholders are filled by the small functions below; never inline these strings in components.

/** How an authentication mode is named to users (the unauthorised-mode page). */
function modeLabel(mode: string): string {
  if (mode === 'ory') return 'email and password or single sign-on';
  if (mode === 'm365') return 'Microsoft 365';
  return mode;
}

export const copy = {
  common: {
    continue: 'Continue',
    back: 'Back',
    loading: 'Loading…',
    privacyNotice: 'Privacy Notice',
    contactSupport: 'Contact support',
    termsOfService: 'Terms of Service',
  },
  login: {
    useAnotherEmail: 'Use another email',
    m365Unavailable: {
      title: 'Microsoft 365 sign-in',
      text: (email: string, appName: string) =>
        `${email} signs in with Microsoft 365, and ${appName} does not offer Microsoft 365 sign-in.`,
      magicText: 'Your organisation uses MAGIC, where you can sign in with Microsoft 365.',
      magicLink: 'Sign in to MAGIC with Microsoft 365',
      supportPrefix: (appName: string) => `To use ${appName}, contact`,
      supportSuffix: 'for access.',
    },
    email: {
      title: 'Welcome',
      prompt: 'Enter the email address tied to your account to continue.',
      emailLabel: 'Email',
      emailPlaceholder: 'name@company.com',
      accessHeading: 'Need access?',
      accessContact: 'Contact',
      accessSuffix: 'to get access.',
      termsNotice: 'By continuing you agree to the',
      termsAnd: 'and acknowledge the',
      termsOfServiceLink: 'Terms of Service',
      privacyLink: 'Privacy Notice',
      invalidEmail: 'Enter a valid email address.',
    },
    password: {
      title: 'Enter password',
      loggingInAs: 'Logging in as',
      passwordLabel: 'Password',
      back: 'Back to email',
      forgotPassword: 'Forgot Password',
    },
    sso: {
      redirecting: "Redirecting you to your organisation's SSO provider...",
      proceed: 'Proceed',
      redirectLoop: 'Redirect loop detected.',
      tryAgain: 'Try again',
      loopHelp:
        'Your organisation’s sign-in keeps sending you back here. Try again, or use another email address.',
      loopFinal: 'Signing in through your organisation’s provider did not work after several tries.',
      contactPrefix: 'Contact',
      contactSuffix: 'if the problem persists.',
    },
    emailConfirmation: {
      title: 'Verify your email address',
      text: 'Your email address is not verified yet. We have sent you instructions to verify it.',
      verifyNow: 'Enter verification code',
    },
    passwordConfirmation: {
      title: 'Password confirmation',
      text: 'Please confirm your password to proceed.',
    },
    mfa: {
      title: 'Enter your 2FA code',
      prompt: 'Enter the six-digit code from your authenticator app.',
      codeLabel: '2FA code',
      noAppPrefix: "Don't have access to your authenticator app? Contact",
    },
    mfaSetup: {
      titleOnboarding: 'Set up 2FA',
      titleReset: 'Reset your 2FA',
      titleUpdate: 'Update your 2FA',
      guidance:
        'Install an authenticator app such as Google Authenticator, Microsoft Authenticator or 1Password on your phone.',
      installedCheckbox: 'I have installed an authenticator app',
      scanQr: 'Scan this QR code with your authenticator app.',
      manualCode: 'Or enter this code manually:',
      copy: 'Copy',
      copied: 'Copied',
      codeLabel: '2FA code',
      skip: 'Skip for now',
      scanAgain: 'You will need to scan the QR code again if your previous attempt failed.',
      qrAlt: 'Authenticator app QR code',
      updateText: 'Your account already has an authenticator app. Continue to replace it with a new one.',
    },
  },
  forgotPassword: {
    emailTitle: 'Forgot password',
    emailPrompt: 'Enter your email address and we will send you a code to reset your password.',
    codeTitle: 'Verify your email',
    codePrompt: 'Enter the code we sent to your email address.',
    codeLabel: 'Code',
    codePlaceholder: '000000',
    passwordTitle: 'Change your password',
    sessionExists: 'You are already signed in, so your password cannot be recovered here.',
    goToPlatform: 'Go to the platform',
    backToLogin: 'Back to sign in',
    logout: 'Log out',
  },
  password: {
    label: 'New password',
    confirmLabel: 'Confirm new password',
    create: 'Create password',
    reenter: 'Re-enter password',
    chooseNew: 'Choose new password',
    reenterNew: 'Re-enter new password',
    rulesLabel: 'Password requirements',
    ruleLength: 'Minimum 8 characters',
    ruleDigit: 'At least one number',
    ruleSpecial: 'At least one special character (e.g. !@#$%^&*)',
  },
  onboarding: {
    steps: { email: 'Email', password: 'Password', mfa: '2FA', terms: 'Terms' },
    stepsLabel: 'Onboarding steps',
    verifying: 'Verifying your invitation…',
    passwordTitle: 'Set your password',
    passwordPrompt: 'Create a password for your account.',
    termsTitle: 'Accept the terms',
    linkExpired: 'Link expired',
    needNewInvitation: 'Need a new invitation?',
    contactForInvitation: (email: string) => `Please contact ${email} to get a new invitation.`,
    alreadyLoggedIn: (email: string) => `You are already logged in as ${email}`,
    clickPrefix: 'Click',
    proceedLink: 'here to proceed',
    orPrefix: 'or',
    logoutLink: 'here to logout',
    finishing: 'Finishing your onboarding…',
  },
  callbackOnboarding: {
    steps: { sso: 'SSO', git: 'Link to GitHub', tos: 'Terms of Service' },
    gitTitle: 'Link your GitHub account',
    gitPrompt: 'Your organisation uses GitHub. Link your work GitHub account to continue.',
    signingUpAs: 'Signing up as',
    authenticate: 'Authenticate with GitHub',
    linking: 'Linking your GitHub account…',
    finalStep: 'Final Step',
  },
  terms: {
    prompt: 'Please read and accept the following to continue.',
    agreeTermsPrefix: 'I agree to the platform',
    agreeTermsLink: 'terms of service',
    agreePrivacyPrefix: 'I agree to the',
    agreePrivacyLink: 'privacy policy',
  },
  legal: {
    termsTitle: 'Terms of Service',
    privacyTitle: 'Privacy Notice',
    sampleLabel: 'Sample text',
    sampleNotice:
      'This is sample text shipped with the product, not a real agreement. Your organisation publishes its own documents in its place.',
    version: (version: string, effective: string) => `Version ${version}, effective ${effective}`,
  },
  verification: {
    heading: 'Verify your email address',
    text: 'Enter the code you received via email to proceed.',
    codeLabel: 'Verification code',
    placeholder: 'XXXXXX',
  },
  mfaSetupScreen: {
    successHeading: '2FA',
    success: (app: string) =>
      `You've successfully added the product ${app} to your 2FA app. Your account is now extra secure.`,
    returnTo: (app: string) => `Return to the product ${app}`,
  },
  accessDenied: {
    title: 'Access Denied',
    page: 'You are not authorised to access this page.',
    product: (product: string, email: string) =>
      `You are not authorised to access product ${product}. Please contact ${email} for support.`,
    mode: (app: string, mode: string, allowed: string[]) =>
      `You are not authorised to access ${app} with ${modeLabel(mode)} sign-in. Log out, then sign in with ${allowed.map(modeLabel).join(' or ')}.`,
  },
  welcome: {
    title: (app: string) => `Welcome to ${app}`,
    product:
      'A quantitative research and strategy-deployment platform: data, research environments, strategy deployments and AI agents for your organisation.',
    noSubscription:
      "Your organisation does not have a subscription yet, so the product's features are not available to you.",
    howToSubscribe: 'An administrator of your organisation can subscribe through the offer page:',
    offerLink: 'Subscribe to the offer',
    contact: 'Questions? Contact',
    signedInAs: 'Signed in as',
  },
  errorPage: {
    title: 'Something went wrong',
    backToLogin: 'Back to Login',
    retry: 'Retry',
    persist: 'If the problem persists, please contact support.',
    generic: 'An unexpected error occurred.',
  },
  toast: {
    title: 'Action could not be completed',
    dismiss: 'Dismiss',
  },
  research: {
    /** A landing page's heading: the application and the page, e.g. "Platform · research". */
    title: (app: string, page: string) => `${app} · ${page}`,
    signedInAs: 'Signed in as',
    claims: 'Token claims (ext)',
    logout: 'Log out',
    /** Once, after the sign-in that onboarded the person (the first-login flag). */
    firstLogin: (app: string) => `Welcome to ${app}: your account is ready.`,
  },
  progress: {
    signingIn: 'Signing you in…',
    signingOut: 'Signing you out…',
  },
  m365: {
    loginTitle: 'Welcome',
    loginText: (appName: string) => `Sign in with your Microsoft 365 account to continue to ${appName}.`,
    termsNotice: 'By continuing you agree to the',
    termsLink: 'Customer Terms of Service',
    termsAnd: 'and acknowledge the',
    privacyLink: 'Privacy Notice',
    signingIn: 'Signing you in with Microsoft…',
    signingUpAs: 'Signing up as',
    activating: 'Activating your subscription…',
    notConnectedTitle: 'Welcome, not connected',
    notConnectedText: (appName: string) => `Your Microsoft 365 account is not connected to ${appName} yet.`,
    notConnectedAdmin: "If you administer your organisation's cloud subscriptions, you can set one up:",
    setUpSubscription: 'Set up a subscription',
    ownerTooltip: "Only an Owner or Contributor of your organisation's cloud subscription can subscribe.",
    whoCanSubscribe: 'Who can subscribe?',
    notConnectedTeams: (appName: string) =>
      `Ask an Owner or Contributor of your organisation's cloud subscription to subscribe to ${appName}; then open it again here in Teams.`,
    consentTitle: 'Admin consent required',
    consentText: (appName: string) =>
      `An administrator of your Microsoft 365 organisation must grant ${appName} access to your directory before you can sign in.`,
    unauthorisedTitle: 'Access not granted yet',
    unauthorisedText: (appName: string) =>
      `Your organisation uses ${appName}, but your account has not been given access. We have passed your request to your organisation's administrators.`,
    authenticatedTitle: 'You are signed in',
    continueTo: (appName: string) => `Continue to ${appName}`,
    alreadySubscribedTitle: 'Welcome, organisation already subscribed',
    alreadySubscribedText:
      'Your organisation already has a subscription. Please contact support to add this purchase to it.',
    notPurchaser:
      'Only the person who bought this subscription in the Azure Marketplace can activate it. Ask them to open the link from their purchase, or sign in with the account that bought it.',
    subscriptionInactive:
      'The Azure Marketplace reports this subscription as suspended or cancelled, so it cannot be activated. Reactivate it in the Azure portal or contact support.',
    accountInactive: "Your account is deactivated. Please contact your organisation's administrator.",
    errorTitle: 'Microsoft sign-in failed',
    tryAgain: 'Try again',
    useAnotherAccount: 'Use another account',
    interactionInProgress:
      'Interaction is required but another interaction is already in progress. Please try again when the current interaction is complete.',
    invalidInteractionType: 'The provided interaction type is invalid.',
    noProvider: 'The sign-in client was used outside its provider.',
    noIdentityToken: 'Microsoft did not return an identity token.',
  },
  teams: {
    initTimeout: 'SDK initialization timed out.',
    errorCodes: {
      100: 'Not supported on platform',
      500: 'Internal error',
      1000: 'Permission denied',
      2000: 'Network error',
      4000: 'Invalid arguments',
      8000: 'User abort',
      8001: 'Timed out',
    } as Record<number, string>,
    sdkError: (code: number, name: string, message?: string) =>
      message ? `Teams error ${code} (${name}): ${message}` : `Teams error ${code} (${name})`,
    authTokenFailed: (reason: string) => `Teams could not provide a sign-in token: ${reason}`,
    urlNotHttps: 'The URL must use https.',
    urlTooLong: (limit: number) => `The URL must be at most ${limit} characters long.`,
    urlHasScript: 'The URL must not contain script tags.',
    invalidAppId: (min: number, max: number) =>
      `The app id must be ${min} to ${max} printable characters without script tags.`,
  },
  httpClient: {
    badOption: (option: string, expected: string) => `option ${option} must be ${expected}`,
    networkError: 'Network Error',
    aborted: 'Request aborted',
    timeout: (ms: number) => `timeout of ${ms}ms exceeded`,
    canceled: 'canceled',
    badStatus: (status: number) => `Request failed with status code ${status}`,
    unsupportedProtocol: (protocol: string) => `Unsupported protocol ${protocol}`,
    requiredParameter: (parameter: string, operation: string) =>
      `Required parameter ${parameter} was null or undefined when calling ${operation}.`,
  },
  errors: {
    verifyingEmail: (message: string) => `Error verifying email address: ${message}`,
    loadingSession: (message: string) => `Error loading session: ${message}`,
    loginFlow: (message: string) => `Error with login flow: ${message}`,
    recoveryFlow: (message: string) => `Error loading recovery flow: ${message}`,
    consentFlow:
      'Error in the consent flow, this can happen when login is initiated in different tabs at the same time.',
    missingConsentChallenge: 'Error logging in: missing consent challenge',
    missingSession: 'Error logging in: missing session',
    redirectLoop: 'Redirect loop detected.',
    ssoCannotSetUpMfa: 'SSO users cannot set up MFA',
    alreadyLoggedIn: (email: string) => `You are already logged in as ${email}`,
    linkExpired: 'Link expired',
    accessDenied: 'Access Denied',
    oauth2: (code: string, description: string) => `OAuth2 error ${code}. ${description}`,
    http: (status: number, text: string) => `HTTP Error ${status} ${text}`,
    invalidTokenResponse: 'Invalid OAuth2 Token Response',
    fullReauth: 'Unable to obtain OAuth2 tokens, a full reauth may be needed',
    missingCode: 'The url did not contain a code parameter',
    stateMismatch: 'The state parameter did not match the stored state',
    invalidToken: 'Invalid token',
    unknown: 'Unknown error',
  },
} as const;
