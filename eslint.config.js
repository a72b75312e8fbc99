// Lint on top of the type check: the recommended TypeScript rules, generated code excluded.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["gen/**", "node_modules/**", "**/dist/**", ".data/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // Tests and the gRPC wire test reach into untyped grpc-js objects on purpose.
      "@typescript-eslint/no-explicit-any": ["warn"],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
    },
  },
);
