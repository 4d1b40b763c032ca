// @authenio/samlify-xmllint-wasm ships no types: samlify's schema validator interface.
declare module '@authenio/samlify-xmllint-wasm' {
  export function validate(xml: string): Promise<string>;
}
