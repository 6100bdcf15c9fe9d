/** Words for counts: "1 row", "2 rows". Said by the views and by the gateway client's messages alike. */
export const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`
