/** Terms step: both checkboxes must be ticked. */
export function canAcceptTerms(termsOfService: boolean, privacyPolicy: boolean): boolean {
  return termsOfService && privacyPolicy;
}
