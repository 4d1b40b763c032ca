/**
 * Stands for the application's access contact in the pre-rendered login page (login-page.tsx), which
 * the account app server fills in per application.
 */
export const ACCESS_EMAIL_SLOT = 'access-contact.slot@invalid';
