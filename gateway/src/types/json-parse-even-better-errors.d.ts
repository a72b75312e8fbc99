// The package ships no types; this is the one function we call.
declare module "json-parse-even-better-errors" {
  export default function parseJson(text: string, reviver?: (key: string, value: unknown) => unknown): unknown;
}
