package stress

import ()
