// The gs_restore command (tools/backup/gs_restore.ts): the launcher runs tools/<name>.ts.

import './backup/gs_restore.ts';
