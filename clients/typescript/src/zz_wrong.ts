import type { components } from "../generated/api";
export const card = (m: components["schemas"]["Move"]): number => m.card;
