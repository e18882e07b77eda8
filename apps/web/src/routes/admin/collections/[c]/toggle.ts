/** The list with the value added, or taken out when it is there (a ticked checkbox). */
export const toggle = <T>(list: T[], value: T): T[] =>
  list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
