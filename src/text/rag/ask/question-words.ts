// Word lists about questions that need no part-of-speech tagger (answer-type.ts and the support check share them).

/** Verbs of saying, thinking and proposing: what someone said about something is an open question. */
export const DISCOURSE =
  'say|said|says|saying|think|thought|thinks|propose|proposed|proposes|warn|warned|warns|argue|argued|argues|believe|believed|believes|' +
  'claim|claimed|claims|mean|meant|means|suggest|suggested|suggests|promise|promised|promises|urge|urged|urges|describe|described|describes|' +
  'explain|explained|explains|talk|talked|talks|speak|spoke|speaks|feel|felt|feels|write|wrote|writes|ask|asked|asks|recommend|recommended|' +
  'advocate|advocated|criticize|criticized|criticise|criticised|announce|announced|envision|envisioned|hope|hoped|fear|feared|insist|insisted|' +
  'emphasize|emphasized|emphasise|emphasised|stress|stressed|call for|called for|calls for|plan|planned|want|wanted|intend|intended|report|reported|reports';
